/**
 * The PagerDuty notifier against a local Events API v2 receiver that checks the documented
 * event shape and answers as PagerDuty does (202, 400 for an invalid event, 429).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readEnv } from '../../../lib/config';
import type { CredentialProvider } from '../../../lib/credentials/types';
import { redactText } from '../../../lib/redact';
import { createPagerDutyNotifier } from '../../../lib/watch/notifiers/pagerduty';
import { configuredNotifiers, notifierEnv } from '../../../lib/watch/notifiers/registry';
import { NotifyError } from '../../../lib/watch/notifiers/types';
import type { KeyNotice } from '../../../lib/watch/subjects/key';
import type { PipeNotice } from '../../../lib/watch/subjects/pipe';
import { failedPipeNotice, renderAny } from '../../support/notices';
import { startPagerDuty } from '../../support/pagerduty-receiver';

const KEY = 'R0ut1ngKeyOfTheOrdersTeam0000001';
const OTHER_KEY = 'R0ut1ngKeyOfTheOrdersTeam0000002';
const failed = failedPipeNotice({
  id: 'org-1/svc-1/pipe-1/transition/1',
  sourceKind: 'kafka',
  at: '2026-11-26T10:05:00.000Z',
  since: '2026-11-26T10:05:00.000Z',
});
const recovered: PipeNotice = {
  ...failed,
  id: 'org-1/svc-1/pipe-1/recovery/2',
  resolves: true,
  kind: 'recovery',
  severity: 'info',
  from: 'Failed',
  to: 'Running',
  at: '2026-11-26T10:25:00.000Z',
  message: 'Pipe orders recovered: Failed -> Running',
};
const noSleep = { sleep: async () => {}, timeoutMs: 1000 };
const LINK = 'https://console.example/{organizationId}/services/{serviceId}/pipes/{pipeId}';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
async function pagerDuty(keys = [KEY], statuses: number[] = []) {
  const pd = await startPagerDuty(keys, statuses);
  closers.push(pd.close);
  return pd;
}

describe('pagerduty notifier', () => {
  it('a problem is a trigger with the documented fields; its recovery a resolve with the same dedup_key', async () => {
    const pd = await pagerDuty();
    const notifier = createPagerDutyNotifier({
      render: renderAny,
      routingKey: KEY,
      url: pd.url,
      linkTemplate: LINK,
      ...noSleep,
    });
    await notifier.send(failed);
    await notifier.send(recovered);
    expect(pd.refused).toEqual([]);
    const [trigger, resolve] = pd.accepted;
    expect(trigger).toEqual({
      routing_key: KEY,
      dedup_key: 'pipe/org-1/svc-1/pipe-1/health',
      event_action: 'trigger',
      client: 'cloudops',
      payload: {
        summary: 'Pipe orders went from Running to Failed',
        source: 'svc-1',
        severity: 'critical',
        timestamp: failed.at,
        component: 'orders',
        group: 'org-1',
        class: 'transition',
        custom_details: {
          condition: 'transition',
          since: failed.since,
          'State change': 'Running -> Failed',
          Pipe: 'orders (pipe-1)',
          Service: 'svc-1',
          Since: failed.since,
          Source: 'kafka',
          'first check':
            "check the pipe's source credentials and the destination table; `cloudops pipes get pipe-1`",
        },
      },
      links: [
        { href: 'https://console.example/org-1/services/svc-1/pipes/pipe-1', text: 'Open pipe' },
      ],
    });
    expect(resolve).toEqual({
      routing_key: KEY,
      dedup_key: trigger.dedup_key,
      event_action: 'resolve',
    });
    expect([...pd.incidents]).toEqual([['pipe/org-1/svc-1/pipe-1/health', 'resolved']]);
  });

  it('severities map one to one; an info notice that resolves nothing is no incident and is not sent', async () => {
    const pd = await pagerDuty();
    const notifier = createPagerDutyNotifier({
      render: renderAny,
      routingKey: KEY,
      url: pd.url,
      ...noSleep,
    });
    await notifier.send({ ...failed, severity: 'warning', kind: 'stuck', to: 'Provisioning' });
    await notifier.send({ ...failed, severity: 'info', kind: 'new', from: '', to: 'Running' });
    expect(pd.requests()).toBe(1);
    expect(pd.accepted[0].payload?.severity).toBe('warning');
    expect(pd.accepted[0].payload?.custom_details?.['first check']).toMatch(
      /^Provisioning this long/,
    );
  });

  it("keeps PagerDuty's limits: a one-line summary of at most 1024 characters, a dedup_key of at most 255 (stable)", async () => {
    const pd = await pagerDuty();
    const notifier = createPagerDutyNotifier({
      render: renderAny,
      routingKey: KEY,
      url: pd.url,
      ...noSleep,
    });
    const long: KeyNotice = {
      subject: 'key',
      id: 'k1',
      dedupKey: `key/unused/${'arn:aws:secretsmanager:eu-west-1:123456789012:secret:'.repeat(6)}`,
      resolves: false,
      kind: 'finding',
      severity: 'critical',
      from: '',
      to: 'high',
      at: failed.at,
      since: failed.since,
      message: `Key \u001b[31mexpired\u001b[0m\n${'x'.repeat(2000)}`,
      check: 'expired',
      level: 'high',
      secretId: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:watchdog-key-AbCdEf',
      keySuffix: 'ABCD',
      action: 'rotate it: cloudops keys rotate',
    };
    await notifier.send(long);
    await notifier.send({ ...long, id: 'k2', resolves: true, severity: 'info' });
    expect(pd.refused).toEqual([]);
    const [trigger, resolve] = pd.accepted;
    expect(trigger.payload?.summary).toHaveLength(1024);
    expect(trigger.payload?.summary.startsWith('Key expired x')).toBe(true);
    expect(trigger.dedup_key!.length).toBeLessThanOrEqual(255);
    expect(resolve.dedup_key).toBe(trigger.dedup_key);
  });

  it('a 400 (an invalid event) is not retried and names what PagerDuty said', async () => {
    const pd = await pagerDuty([KEY]);
    const error = await createPagerDutyNotifier({
      render: renderAny,
      routingKey: KEY,
      url: pd.url,
      ...noSleep,
    })
      .send(failedPipeNotice({ ...failed, serviceId: '' })) // an event without a source
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotifyError);
    expect((error as NotifyError).status).toBe(400);
    expect((error as NotifyError).message).toMatch(
      /^pagerduty: receiver answered 400: .*Event object is invalid/,
    );
    expect(pd.requests()).toBe(1);
  });

  it('a 429 is retried with backoff, then accepted', async () => {
    const pd = await pagerDuty([KEY], [429, 429]);
    const waits: number[] = [];
    await createPagerDutyNotifier({
      render: renderAny,
      routingKey: KEY,
      url: pd.url,
      timeoutMs: 1000,
      sleep: (ms) => Promise.resolve(void waits.push(ms)),
    }).send(failed);
    expect(pd.requests()).toBe(3);
    expect(pd.accepted).toHaveLength(1);
    expect(waits).toEqual([200, 400]);
  });

  it('a routing key PagerDuty refuses: the secret is read again once, and the event sent with the new key', async () => {
    const pd = await pagerDuty([OTHER_KEY]); // the key was replaced in PagerDuty and the secret
    let reads = 0;
    const secret: CredentialProvider<{ routingKey: string }> = {
      label: 'cloudops/pagerduty',
      get: () => Promise.resolve({ routingKey: KEY }),
      refresh: () => Promise.resolve(((reads += 1), { routingKey: OTHER_KEY })),
    };
    await createPagerDutyNotifier({
      render: renderAny,
      routingKey: secret,
      url: pd.url,
      ...noSleep,
    }).send(failed);
    expect(reads).toBe(1);
    expect(pd.refused.map((r) => r.errors)).toEqual([['Invalid routing key']]);
    expect(pd.accepted.map((e) => e.routing_key)).toEqual([OTHER_KEY]);
  });

  it('the same key refused after a fresh read: fails once, naming the answer, never the key', async () => {
    const pd = await pagerDuty([OTHER_KEY]);
    const error = (await createPagerDutyNotifier({
      render: renderAny,
      routingKey: KEY,
      url: pd.url,
      ...noSleep,
    })
      .send(failed)
      .catch((e: unknown) => e)) as NotifyError;
    expect(error.message).toMatch(/receiver answered 400: .*Invalid routing key/);
    expect(error.message).not.toContain(KEY);
    expect(pd.requests()).toBe(1);
    expect(redactText(`key=${KEY}`)).toBe('key=[REDACTED]'); // registered when read
  });
});

describe('pagerduty settings', () => {
  const read = (env: Record<string, string>) =>
    configuredNotifiers(readEnv(notifierEnv, env), renderAny);

  it('a routing key or a secret id configures it; the endpoint defaults to the public one', () => {
    expect(read({ CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY: KEY }).map((n) => n.name)).toEqual([
      'pagerduty',
    ]);
    expect(
      read({ CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID: 'cloudops/pd' }).map((n) => n.name),
    ).toEqual(['pagerduty']);
    expect(readEnv(notifierEnv, {}).CLOUDOPS_WATCHDOG_PAGERDUTY_URL).toBe(
      'https://events.pagerduty.com/v2/enqueue',
    );
    expect(redactText(KEY)).toBe('[REDACTED]');
  });

  it('a malformed key is a one-line error naming the variable, never the value; key and secret id together too', () => {
    const bad = 'not-a-routing-key-at-all';
    expect(() => read({ CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY: bad })).toThrow(
      /CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY: expected the 32-character integration key/,
    );
    try {
      read({ CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY: bad });
    } catch (error) {
      expect((error as Error).message).not.toContain(bad);
    }
    expect(() =>
      read({
        CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY: KEY,
        CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID: 'cloudops/pd',
      }),
    ).toThrow(/set CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID or its values in env/);
  });
});
