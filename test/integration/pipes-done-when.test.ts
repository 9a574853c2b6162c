/**
 * Issue's "Done when", through the CLI against the sandbox: a pipe that fetches 100 events a
 * minute and sends none, `cloudops pipes check` every 5 sandbox-minutes for 40 minutes → exactly
 * one critical `stalled` notice naming it; its flow restored → one recovery under the same key;
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
import { startReceiver } from '../support/receiver';
import { admin } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

const MIN = 60_000;
let sb: Sandbox;
let dir: string;
let hook: Awaited<ReturnType<typeof startReceiver>>;
let kafka: string;
let postgres: string;

beforeAll(async () => {
  sb = await startTestSandbox({ profile: 'current' });
  hook = await startReceiver();
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-done-when-'));
  kafka = sb.store.state.pipes.find((p) => p.name === 'orders-kafka')!.id;
  postgres = sb.store.state.pipes.find((p) => p.name === 'users-postgres-cdc')!.id;
});
afterAll(async () => {
  vi.useRealTimers();
  await hook.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  // The CLI reads the wall clock (faked here), the sandbox its own: both move together.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  hook.received.length = 0;
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
  vi.setSystemTime(Date.now() + 5 * MIN);
}

function cli(stateFile: string, extra: Record<string, string> = {}) {
  const env = {
    ...sandboxEnv(sb.info),
    CLOUDOPS_LOG_LEVEL: 'silent',
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
    CLOUDOPS_SERVICE_ID: sb.info.serviceId,
    CLOUDOPS_WATCHDOG_WEBHOOK_URL: `${hook.url}/hooks/done-when`,
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
    expect(stalls.map((n) => `${n.kind}:${n.severity}:${n.pipeName}`)).toEqual([
      'stalled:critical:orders-kafka',
    ]);
    expect(noticesAbout(postgres)).toEqual([]);

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
