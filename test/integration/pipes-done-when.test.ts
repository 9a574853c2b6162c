/**
 * Issue's "Done when", through the CLI against the sandbox: a pipe that fetches 100 events a
 * minute and sends none, `cloudops pipes check` every 5 sandbox-minutes for 40 minutes → exactly
 * one critical `stalled` notice naming it (Slack text escaped, PagerDuty `trigger`); its flow
 * restored → one recovery under the same key (PagerDuty `resolve`, the same `dedup_key`);
 * a quiet pipe raises nothing unless configured to expect traffic; `pipes list` shows the
 * condition while it is open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import type { ServiceView } from '../../lib/pipes/view';
import type { PipeNotice } from '../../lib/watch/subjects/pipe';
import type { Sandbox } from '../../sandbox/index';
import { runCapture } from '../support/cli';
import { startPagerDuty } from '../support/pagerduty-receiver';
import { startReceiver } from '../support/receiver';
import { admin } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

const MIN = 60_000;
let sb: Sandbox;
let dir: string;
let hook: Awaited<ReturnType<typeof startReceiver>>;
let slack: Awaited<ReturnType<typeof startReceiver>>;
let pagerDuty: Awaited<ReturnType<typeof startPagerDuty>>;
const ROUTING_KEY = 'R0UT1NGKEY0DONEWHEN0000000000000';
/** A name from the service is untrusted: in Slack it must not page the whole channel. */
const HOSTILE_NAME = '<!channel> orders-kafka';
let kafka: string;
let postgres: string;

beforeAll(async () => {
  // The sandbox's clock stands still but for what a test advances: its counters then grow by
  // exactly the minutes the test lets pass, however slowly the machine runs the checks.
  const start = Date.now();
  sb = await startTestSandbox({ profile: 'current', now: () => start });
  hook = await startReceiver();
  slack = await startReceiver();
  pagerDuty = await startPagerDuty([ROUTING_KEY]);
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-done-when-'));
  const kafkaPipe = sb.store.state.pipes.find((p) => p.name === 'orders-kafka')!;
  kafkaPipe.name = HOSTILE_NAME;
  kafka = kafkaPipe.id;
  postgres = sb.store.state.pipes.find((p) => p.name === 'users-postgres-cdc')!.id;
});
afterAll(async () => {
  vi.useRealTimers();
  await hook.close();
  await slack.close();
  await pagerDuty.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  // The CLI reads the wall clock, faked here to read the sandbox's: one clock for both.
  vi.useFakeTimers({ toFake: ['Date'], now: sb.clock.now() });
  hook.received.length = 0;
  slack.received.length = 0;
  pagerDuty.accepted.length = 0;
  // The quiet pipe: Running, nothing in, nothing out.
  sb.setPipeState(postgres, 'Running');
  await admin(sb, 'PUT', `/pipes/${postgres}/flow`, { fetchedPerMinute: 0, sentPerMinute: 0 });
});
afterEach(async () => {
  for (const id of [kafka, postgres]) await admin(sb, 'DELETE', `/pipes/${id}/flow`);
  vi.useRealTimers();
});

/** Five minutes pass, for the sandbox and for the CLI alike. */
function fiveMinutesPass() {
  sb.clock.advance(5 * MIN);
  vi.setSystemTime(sb.clock.now());
}

function cli(stateFile: string, extra: Record<string, string> = {}) {
  const env = {
    ...sandboxEnv(sb.info),
    CLOUDOPS_LOG_LEVEL: 'silent',
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
    CLOUDOPS_SERVICE_ID: sb.info.serviceId,
    CLOUDOPS_WATCHDOG_WEBHOOK_URL: `${hook.url}/hooks/done-when`,
    CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: `${slack.url}/services/T1/B1/donewhen`,
    CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY: ROUTING_KEY,
    CLOUDOPS_WATCHDOG_PAGERDUTY_URL: pagerDuty.url,
    ...extra,
  };
  const args = ['--state-file', path.join(dir, stateFile)];
  return {
    check: async () => {
      const run = await runCapture(['pipes', 'check', ...args], { env });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    },
    list: () => runCapture(['pipes', 'list', ...args], { env }),
    listJson: async () => {
      const run = await runCapture(['pipes', 'list', '--json', ...args], { env });
      return (JSON.parse(run.stdout) as { services: ServiceView[] }).services[0];
    },
  };
}

const noticesAbout = (pipeId: string) =>
  hook.received
    .map((r) => (JSON.parse(r.body) as { notification: PipeNotice }).notification)
    .filter((n) => n.pipeId === pipeId);

const slackAbout = (name: string) =>
  slack.received.map((r) => r.body).filter((body) => body.includes(name));

/** The seed's Failed and Stopped pipes are told too; these are the events about one pipe. */
const pagerDutyAbout = (pipeId: string) =>
  pagerDuty.accepted.filter((e) => e.dedup_key?.includes(pipeId));

describe('done when', () => {
  it('one critical stall in 40 minutes, shown by pipes list; restored, one recovery; the quiet pipe says nothing', async () => {
    const c = cli('done-when.json');
    await admin(sb, 'PUT', `/pipes/${kafka}/flow`, { fetchedPerMinute: 100, sentPerMinute: 0 });
    await c.check();
    for (let minutes = 5; minutes <= 40; minutes += 5) {
      fiveMinutesPass();
      await c.check();
    }
    const stalls = noticesAbout(kafka);
    // The webhook carries the name raw; Slack gets it escaped; PagerDuty opens one incident.
    expect(stalls.map((n) => `${n.kind}:${n.severity}:${n.pipeName}`)).toEqual([
      `stalled:critical:${HOSTILE_NAME}`,
    ]);
    expect(noticesAbout(postgres)).toEqual([]);
    expect(slackAbout('orders-kafka')).toHaveLength(1);
    expect(slackAbout('orders-kafka')[0]).toContain('&lt;!channel&gt; orders-kafka');
    expect(slack.received.map((r) => r.body).join('\n')).not.toContain('<!channel>');
    expect(pagerDutyAbout(kafka)).toEqual([
      expect.objectContaining({
        event_action: 'trigger',
        dedup_key: stalls[0].dedupKey,
        payload: expect.objectContaining({ severity: 'critical' }) as unknown,
      }),
    ]);

    const open = (await c.listJson()).pipes.find((p) => p.pipeId === kafka)!;
    expect(open.conditions).toEqual([
      expect.objectContaining({ condition: 'progress', name: 'stalled', severity: 'critical' }),
    ]);
    expect((await c.list()).stdout).toMatch(
      /orders-kafka +Running .* 0 +100 .*stalled \(critical, piling-up\) since/,
    );

    await admin(sb, 'DELETE', `/pipes/${kafka}/flow`);
    fiveMinutesPass();
    await c.check();
    const told = noticesAbout(kafka);
    expect(told.map((n) => n.kind)).toEqual(['stalled', 'recovery']);
    expect(told[1]).toMatchObject({ dedupKey: told[0].dedupKey, resolves: true });
    expect(slackAbout('orders-kafka')).toHaveLength(2);
    expect(pagerDutyAbout(kafka).map((e) => `${e.event_action}:${e.dedup_key}`)).toEqual([
      `trigger:${told[0].dedupKey}`,
      `resolve:${told[0].dedupKey}`,
    ]);
    expect(pagerDuty.incidents.get(told[0].dedupKey)).toBe('resolved');
    const closed = (await c.listJson()).pipes.find((p) => p.pipeId === kafka)!;
    expect(closed.conditions).toEqual([]);
  });

  it('the quiet pipe is told quiet once it is configured to expect traffic', async () => {
    const c = cli('expects.json', { CLOUDOPS_WATCHDOG_EXPECT_TRAFFIC: 'users-*' });
    await c.check();
    for (let minutes = 5; minutes <= 40; minutes += 5) {
      fiveMinutesPass();
      await c.check();
    }
    expect(noticesAbout(postgres).map((n) => n.kind)).toEqual(['quiet']);
    expect((await c.list()).stdout).toMatch(
      /users-postgres-cdc +Running .*quiet \(warning\) since/,
    );
  });
});
