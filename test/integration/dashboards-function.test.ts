/**
 * The sync-dashboards function: S3 (ListObjectsV2 + GetObject) and EventBridge are modelled
 * with aws-sdk-client-mock; the observability service is the sandbox over HTTP.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { PublishBatchCommand, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import type { Context } from 'aws-lambda';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { sandboxEnv, secretsManagerClientFromEnv } from '../../cli/connect';
import { createHandler as provisionHandler } from '../../functions/provision-alerts/handler';
import { createHandler } from '../../functions/sync-dashboards/handler';
import { createVersionTable } from '../../lib/alerts/versions-dynamo';
import { clearCredentialsCache } from '../../lib/credentials';
import type { DashboardSyncedDetail } from '../../lib/dashboards/events';
import { verifyAsDocumented } from '../support/webhook-signature';
import { registeredSecrets } from '../../lib/redact';
import { startReceiver } from '../support/receiver';
import { startSandbox, type Sandbox } from '../../sandbox/index';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const BUCKET = 'cloudops-config';
const PREFIX = 'dashboards/';
const EXAMPLES = ['checkout-service.yaml', 'platform-overview.json', 'data/ingest.yml'];

let sb: Sandbox;
let objects: Map<string, string>;
const s3 = mockClient(S3Client);
const eventBridge = mockClient(EventBridgeClient);

const api = () =>
  sb.requestLog
    .entries()
    .filter((e) => e.surface === 'management' || e.surface === 'observability');
const writes = () => api().filter((e) => e.method !== 'GET');
const context = {} as Context;
const s3Event = (key: string) => ({
  Records: [
    {
      eventSource: 'aws:s3',
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: BUCKET }, object: { key } },
    },
  ],
});
const schedule = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} };
const sentEvents = () =>
  eventBridge
    .commandCalls(PutEventsCommand)
    .flatMap((c) => c.args[0].input.Entries ?? [])
    .map((e) => ({ ...e, detail: JSON.parse(e.Detail!) as DashboardSyncedDetail }));

function handlerWith(
  extra: Record<string, string | undefined> = {},
  secretsManager?: SecretsManagerClient,
  dynamo?: { client: DynamoDBClient },
) {
  const handler = createHandler({
    env: {
      ...sandboxEnv(sb.info),
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '10000/1s',
      CLOUDOPS_OBSERVABILITY_RATE_LIMIT: '10000/1s',
      CLOUDOPS_LOG_LEVEL: 'silent',
      CLOUDOPS_DASHBOARDS_BUCKET: BUCKET,
      CLOUDOPS_DASHBOARDS_PREFIX: 'dashboards',
      CLOUDOPS_EVENT_BUS_NAME: 'cloudops-bus',
      CLOUDOPS_VAR_WEBHOOK_ID: sb.info.webhookId,
      ...extra,
    },
    s3: new S3Client({ region: 'us-east-1' }),
    eventBridge: new EventBridgeClient({ region: 'us-east-1' }),
    secretsManager,
    ...(dynamo ? { dynamo: dynamo.client } : {}),
    now: () => now ?? new Date('2026-01-02T03:04:05.000Z'),
  });
  let now: Date | undefined;
  /** `at`: the run's clock (each run of the alert-versions tests is a minute later). */
  return (event: unknown, ctx: Context, at?: Date) => {
    now = at;
    return handler(event, ctx);
  };
}

beforeAll(async () => {
  const fast = { limit: 10_000, windowMs: 1_000 };
  sb = await startSandbox({
    profile: 'current', // the example files name sources; the spec snapshot has no sources list
    port: 0,
    rateLimits: { management: fast, observability: fast },
  });
  objects = new Map();
  for (const name of EXAMPLES) {
    const text = await readFile(path.join(import.meta.dirname, '../../dashboards', name), 'utf8');
    // The example tile alert names the folder's webhook file, which `dashboards apply` creates
    // (its URL comes from the CLI's variables); the function's alerts use the seeded webhook.
    objects.set(
      PREFIX + name,
      text.replace('webhook: Checkout alerts', "webhookId: '${WEBHOOK_ID}'"),
    );
  }
  objects.set(PREFIX + 'README.md', '# not a dashboard');
  objects.set('other/ignored.yaml', 'name: [broken');
});
afterAll(async () => {
  s3.restore();
  eventBridge.restore();
  await sb.close();
});
beforeEach(() => {
  sb.requestLog.clear();
  s3.reset();
  eventBridge.reset();
  // ListObjectsV2 in pages of 2, so pagination is exercised.
  s3.on(ListObjectsV2Command).callsFake(
    (input: { Prefix?: string; ContinuationToken?: string }) => {
      const keys = [...objects.keys()].filter((k) => k.startsWith(input.Prefix ?? '')).sort();
      const start = Number(input.ContinuationToken ?? 0);
      const page = keys.slice(start, start + 2);
      const more = start + 2 < keys.length;
      return {
        Contents: page.map((Key) => ({ Key })),
        IsTruncated: more,
        NextContinuationToken: more ? String(start + 2) : undefined,
      };
    },
  );
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    const text = objects.get(input.Key);
    if (text === undefined) throw new Error(`NoSuchKey ${input.Key}`);
    return { Body: { transformToString: () => Promise.resolve(text) } };
  });
  // As EventBridge answers: one EventId per entry.
  eventBridge.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map(() => ({ EventId: 'e' })),
  }));
});

describe('sync-dashboards function', () => {
  it('applies the files on an S3 event and emits one Dashboard Synced event per dashboard', async () => {
    const summary = await handlerWith()(s3Event('dashboards/checkout-service.yaml'), context);
    expect(summary).toMatchObject({
      trigger: 'files-changed',
      mode: 'apply',
      counts: { create: 3 },
      eventsSent: 3,
    });
    // Three dashboards and the one alert their files declare (the sync writes tile alerts).
    expect(writes().filter((e) => e.path.endsWith('/dashboards'))).toHaveLength(3);
    expect(writes().every((e) => e.method === 'POST')).toBe(true);
    const events = sentEvents();
    expect(events.map((e) => [e.Source, e.DetailType, e.EventBusName])).toEqual(
      Array(3).fill(['cloudops', 'Dashboard Synced', 'cloudops-bus']),
    );
    const checkout = events.find((e) => e.detail.dashboardKey === 'checkout-service')!.detail;
    const stored = sb.store.state.dashboards.find((d) => d.id === checkout.dashboardId)!;
    expect(checkout).toMatchObject({
      name: 'Checkout service',
      sourceFile: 'checkout-service.yaml',
      syncedAt: '2026-01-02T03:04:05.000Z',
      tiles: expect.arrayContaining([
        expect.objectContaining({ id: stored.tiles[0].id }),
      ]) as unknown,
      alerts: expect.arrayContaining([
        expect.objectContaining({
          name: 'Checkout error burst',
          threshold: 50,
          thresholdType: 'above',
          interval: '5m',
          channel: { type: 'webhook', webhookId: sb.info.webhookId },
          message: 'More than 50 checkout errors in 5 minutes',
        }),
      ]) as unknown,
    });
    expect(events.map((e) => e.detail.dashboardKey).sort()).toEqual([
      'checkout-service',
      'data/ingest',
      'platform/overview',
    ]);
    // Emitted events are scanned like logs: no secret the run handled may travel in them.
    const emitted = JSON.stringify(events);
    for (const secret of registeredSecrets()) expect(emitted).not.toContain(secret);
    expect(registeredSecrets()).toContain(sb.info.keySecret);
  });

  it('on the schedule: report mode only reports drift; repair mode fixes it with one write', async () => {
    const d = sb.store.state.dashboards.find((x) => x.name === 'Platform overview')!;
    d.tiles[0].w = 10; // drift made by hand
    sb.store.changed();

    const report = await handlerWith({ CLOUDOPS_DASHBOARDS_SCHEDULE_MODE: 'report' })(
      schedule,
      context,
    );
    expect(report).toMatchObject({
      trigger: 'schedule',
      mode: 'plan',
      pending: true,
      eventsSent: 0,
    });
    expect(report.results).toEqual([
      { key: 'platform/overview', name: 'Platform overview', status: 'planned' },
    ]);
    expect(writes()).toHaveLength(0);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);

    const repair = await handlerWith()(schedule, context);
    // Only the repaired dashboard is announced: the others' alerts need no provisioning.
    expect(repair).toMatchObject({
      mode: 'apply',
      counts: { update: 1, unchanged: 2 },
      eventsSent: 1,
    });
    expect(sentEvents().map((e) => e.detail.dashboardKey)).toEqual(['platform/overview']);
    expect(writes().map((e) => e.method)).toEqual(['PUT']);
    expect(sb.store.state.dashboards.find((x) => x.id === d.id)!.tiles[0].w).toBe(16);

    // A no-op drift run: no write, no event.
    sb.requestLog.clear();
    eventBridge.resetHistory();
    const noop = await handlerWith()(schedule, context);
    expect(noop).toMatchObject({ mode: 'apply', counts: { unchanged: 3 }, eventsSent: 0 });
    expect(writes()).toHaveLength(0);
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
  });

  it('a second deployment (its own owner) on the same service reports conflicts and takes nothing over', async () => {
    const before = structuredClone(sb.store.state.dashboards.map((d) => [d.id, d.tags]));
    // The run fails (an alarm for the operator), naming each dashboard it would not take.
    await expect(
      handlerWith({ CLOUDOPS_DASHBOARDS_OWNER: 'stack-b' })(
        s3Event('dashboards/checkout-service.yaml'),
        context,
      ),
    ).rejects.toThrow(/3 dashboard\(s\) not applied: .*owned by "default".*not taken over/);
    expect(writes()).toHaveLength(0);
    expect(sb.store.state.dashboards.map((d) => [d.id, d.tags])).toEqual(before);
  });

  it('ignores events outside the prefix with no request at all', async () => {
    const summary = await handlerWith()(s3Event('other/ignored.yaml'), context);
    expect(summary).toMatchObject({ trigger: 'ignored', mode: 'skipped' });
    expect(api()).toHaveLength(0);
    expect(s3.commandCalls(ListObjectsV2Command)).toHaveLength(0);
  });

  it('a bad file under the prefix fails the run before any request to the service', async () => {
    objects.set(
      PREFIX + 'broken.yaml',
      'name: Broken\ntiles:\n  - { name: a, x: 30, y: 0, w: 1, h: 1 }\n',
    );
    try {
      await expect(handlerWith()(s3Event('dashboards/broken.yaml'), context)).rejects.toThrow(
        /broken\.yaml:3:\d+ tiles\[0\]\.x: Too big/,
      );
      expect(api()).toHaveLength(0);
      expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(0);
    } finally {
      objects.delete(PREFIX + 'broken.yaml');
    }
  });
  it('plans only the files for its service: a file listing other services is left out', async () => {
    const [mine, other] = [sb.info.serviceIds[0], '00000000-0000-4000-8000-00000000abcd'];
    const one = (name: string, services: string[]) =>
      `name: ${name}\nservices: [${services.join(', ')}]\ntiles:\n  - { name: t, x: 0, y: 0, w: 4, h: 4, markdown: hi }\n`;
    objects.set(PREFIX + 'mine.yaml', one('For this service', [mine, other]));
    objects.set(PREFIX + 'theirs.yaml', one('For another service', [other]));
    try {
      const report = await handlerWith({ CLOUDOPS_DASHBOARDS_SCHEDULE_MODE: 'report' })(
        schedule,
        context,
      );
      const names = report.results.map((r) => r.name);
      expect(names).toContain('For this service');
      expect(names).not.toContain('For another service');
      expect(writes()).toHaveLength(0);
    } finally {
      objects.delete(PREFIX + 'mine.yaml');
      objects.delete(PREFIX + 'theirs.yaml');
    }
  });
});

describe('sync-dashboards function in open-source mode', () => {
  it('works with only the token secret: the management key is neither needed nor read', async () => {
    clearCredentialsCache();
    const env = sandboxEnv(sb.info);
    const read: string[] = [];
    const real = secretsManagerClientFromEnv(env);
    // Records which secrets the function reads (the sandbox's log has no secret ids).
    const secretsManager = new Proxy(real, {
      get(target, property, receiver) {
        if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
        // The functions read their secrets with GetSecretValue only.
        return (command: GetSecretValueCommand) => {
          read.push(String(command.input.SecretId));
          return target.send(command);
        };
      },
    });
    try {
      const summary = await handlerWith(
        {
          CLOUDOPS_OBSERVABILITY_MODE: 'open-source',
          CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: sb.info.observabilityTokenSecretId,
          // Nothing of the management API: no URL, no key, no key secret.
          CLOUDOPS_API_URL: undefined,
          CLOUDOPS_SERVICE_ID: undefined,
          CLOUDOPS_KEY_ID: undefined,
          CLOUDOPS_KEY_SECRET: undefined,
          CLOUDOPS_OBSERVABILITY_TOKEN: undefined,
        },
        secretsManager,
      )(s3Event('dashboards/checkout-service.yaml'), context);
      // Same dashboards as the managed surface: nothing changed, so nothing is announced.
      expect(summary).toMatchObject({ trigger: 'files-changed', mode: 'apply', eventsSent: 0 });
      expect(read).toEqual([sb.info.observabilityTokenSecretId]);
      // The stack's own API (same dashboards as the managed surface, so nothing to write).
      expect(api().length).toBeGreaterThan(0);
      expect(api().every((e) => e.surface === 'observability' && e.status === 200)).toBe(true);
    } finally {
      real.destroy();
      clearCredentialsCache();
    }
  });

  it('in managed mode without any key it fails at start naming the variables', () => {
    expect(() =>
      handlerWith({ CLOUDOPS_KEY_ID: undefined, CLOUDOPS_KEY_SECRET: undefined }),
    ).toThrow(/CLOUDOPS_KEY_SECRET_ID \(or CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET\)/);
  });
});

describe('sync-dashboards function with provision-alerts version table', () => {
  let dynamo: LocalDynamo;
  const TABLE = 'cloudops-alert-versions';
  const withTable = () => handlerWith({ CLOUDOPS_ALERTS_VERSION_TABLE: TABLE }, undefined, dynamo);
  /** What the sync emitted, through provision-alerts as EventBridge -> SQS delivers it. */
  async function provisionEmitted(): Promise<void> {
    const provision = provisionHandler({
      env: {
        ...sandboxEnv(sb.info),
        CLOUDOPS_LOG_LEVEL: 'silent',
        CLOUDOPS_OBSERVABILITY_RATE_LIMIT: '10000/1s',
        CLOUDOPS_MANAGEMENT_RATE_LIMIT: '10000/1s',
        CLOUDOPS_ALERTS_VERSION_TABLE: TABLE,
      },
      dynamo: dynamo.client,
    });
    const records = sentEvents().map((e, i) => ({
      messageId: `m${i}`,
      body: JSON.stringify({
        source: e.Source,
        'detail-type': e.DetailType,
        time: e.Time?.toISOString(),
        detail: e.detail,
      }),
      attributes: { ApproximateReceiveCount: '1' },
    }));
    const out = await provision({ Records: records }, context);
    expect(out.batchItemFailures).toEqual([]);
  }
  /** `GET alerts`, `PUT alerts`...; the examples name sources, so each run lists those. */
  const calls = () =>
    api()
      .map(
        (e) =>
          `${e.method} ${e.path
            .split('/')
            .filter((p) => !/^[0-9a-f]{24}$/.test(p))
            .pop()}`,
      )
      .filter((c) => c !== 'GET sources');
  let clock = Date.parse('2026-01-03T00:00:00.000Z');
  const tick = () => new Date((clock += 60_000));

  beforeAll(async () => {
    dynamo = await startLocalDynamo();
    await createVersionTable(dynamo.client, TABLE);
  });
  afterAll(() => dynamo.close());

  it('a no-op schedule run costs one request once alerts are settled; a changed alert is read and applied', async () => {
    const checkout = () => objects.get(PREFIX + 'checkout-service.yaml')!;
    const original = checkout();
    try {
      // No settled record yet: the alerts are listed, and every dashboard with alerts is
      // announced once (unchanged) so that provision-alerts records them.
      const first = await withTable()(schedule, context, tick());
      expect(calls()).toEqual(['GET dashboards', 'GET alerts']);
      expect(first.eventsSent).toBeGreaterThan(0);
      await provisionEmitted();

      sb.requestLog.clear();
      eventBridge.resetHistory();
      const noop = await withTable()(schedule, context, tick());
      expect(noop).toMatchObject({ pending: false, eventsSent: 0 });
      expect(calls()).toEqual(['GET dashboards']);

      // A declared alert changes: the dashboards are as before, but the alert list is read
      // and the one alert updated (its webhook id is in use: no webhooks list either).
      objects.set(
        PREFIX + 'checkout-service.yaml',
        original.replace('threshold: 50', 'threshold: 75'),
      );
      sb.requestLog.clear();
      eventBridge.resetHistory();
      const changed = await withTable()(schedule, context, tick());
      expect(changed).toMatchObject({ counts: { unchanged: 3 }, eventsSent: 1 });
      expect(calls()).toEqual(['GET dashboards', 'GET alerts', 'PUT alerts']);
      expect(sb.store.state.alerts.find((a) => a.name === 'Checkout error burst')?.threshold).toBe(
        75,
      );
      // The sync applied that alert itself and recorded it settled: provision-alerts skips
      // the event without a request, and the next no-op run again costs one.
      sb.requestLog.clear();
      await provisionEmitted();
      expect(calls()).toEqual([]);
      eventBridge.resetHistory();
      await withTable()(schedule, context, tick());
      expect(calls()).toEqual(['GET dashboards']);

      // A new alert naming a webhook id the service does not have: refused before any write.
      objects.set(
        PREFIX + 'checkout-service.yaml',
        original.replace('webhookId: ${WEBHOOK_ID}', 'webhookId: 0123456789abcdef01234567'),
      );
      sb.requestLog.clear();
      await expect(withTable()(schedule, context, tick())).rejects.toThrow(
        /checkout-service\.yaml:\d+:\d+ tiles\[\d\]\.alerts\[0\]\.channel\.webhookId: webhook id "0123456789abcdef01234567" not found/,
      );
      expect(writes()).toHaveLength(0);
    } finally {
      objects.set(PREFIX + 'checkout-service.yaml', original);
    }
  });

  it('one sync time: an alert write that failed in the sync is finished by provision-alerts from the event', async () => {
    const checkout = () => objects.get(PREFIX + 'checkout-service.yaml')!;
    const original = checkout();
    try {
      // The files as they are, applied and provisioned (whatever ran before).
      eventBridge.resetHistory();
      await withTable()(schedule, context, tick());
      await provisionEmitted();
      // "Checkout error burst" is renamed (its old alert deleted, a new one created) and
      // "Checkout went quiet" gets a new threshold (updated); every create fails.
      objects.set(
        PREFIX + 'checkout-service.yaml',
        original
          .replace('name: Checkout error burst', 'name: Checkout error storm')
          .replace('threshold: 1\n', 'threshold: 2\n'),
      );
      sb.faults.queue({ route: 'POST .*/alerts', kind: '500', count: 1000 });
      eventBridge.resetHistory();
      const at = tick();
      await withTable()(schedule, context, at);
      sb.faults.clear();
      const stored = (name: string) => sb.store.state.alerts.find((a) => a.name === name);
      expect(stored('Checkout error storm')).toBeUndefined();
      expect(stored('Checkout went quiet')?.threshold).toBe(2);
      // The alert the sync wrote carries the sync's time, the one its event and claim carry.
      const [event] = sentEvents().filter((e) => e.detail.dashboardKey === 'checkout-service');
      expect(event.detail.syncedAt).toBe(at.toISOString());
      expect(stored('Checkout went quiet')?.message).toContain(`@${at.toISOString()}]`);

      // provision-alerts applies the event: not stale against the sync's own writes.
      await provisionEmitted();
      expect(stored('Checkout error storm')?.threshold).toBe(50);
    } finally {
      objects.set(PREFIX + 'checkout-service.yaml', original);
    }
  });
});

describe('sync-dashboards function in report mode: drift is heard', () => {
  let dynamo: LocalDynamo;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let slack: Awaited<ReturnType<typeof startReceiver>>;
  const sns = mockClient(SNSClient);
  const TOPIC = 'arn:aws:sns:us-east-1:000000000000:cloudops-notifications';
  const SIGNING = 'drift-signing-secret-0123';
  const start = Date.parse('2026-02-01T00:00:00.000Z');
  const at = (minutes: number) => new Date(start + minutes * 60_000);
  const report = () =>
    handlerWith(
      {
        CLOUDOPS_DASHBOARDS_SCHEDULE_MODE: 'report',
        CLOUDOPS_WATCHDOG_TABLE: dynamo.tableName,
        // Paths make the URLs (registered as secrets) unique: a bare loopback address may come
        // back as another test's server and trip the leak scan.
        CLOUDOPS_WATCHDOG_WEBHOOK_URL: `${hook.url}/hooks/drift-a41c`,
        CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET: SIGNING,
        CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: `${slack.url}/services/T0/B0/drift-7f2e`,
        CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: TOPIC,
        CLOUDOPS_WATCHDOG_EVENT_BUS: 'cloudops-bus',
        CLOUDOPS_WATCHDOG_REMINDER_MINUTES: '120',
      },
      undefined,
      dynamo,
    );
  const hookBodies = () =>
    hook.received.map(
      (r) =>
        JSON.parse(r.body) as {
          type: string;
          notification: {
            kind: string;
            from: string;
            to: string;
            message: string;
            markdown?: string;
          };
        },
    );
  const told = () => ({
    webhook: hookBodies().map((b) => `${b.type}:${b.notification.kind}`),
    slack: slack.received.length,
    sns: sns.commandCalls(PublishCommand).length + sns.commandCalls(PublishBatchCommand).length,
    events: eventBridge
      .commandCalls(PutEventsCommand)
      .flatMap((c) => c.args[0].input.Entries ?? [])
      .map((e) => e.DetailType),
  });
  const forget = () => {
    sb.requestLog.clear();
    hook.received.length = 0;
    slack.received.length = 0;
    sns.resetHistory();
    eventBridge.resetHistory();
  };

  beforeAll(async () => {
    dynamo = await startLocalDynamo();
    hook = await startReceiver();
    slack = await startReceiver();
  });
  beforeEach(() => {
    sns.reset();
    sns.on(PublishCommand).resolves({ MessageId: 'm' });
    sns
      .on(PublishBatchCommand)
      .callsFake((input: { PublishBatchRequestEntries: { Id: string }[] }) => ({
        Successful: input.PublishBatchRequestEntries.map((e) => ({ Id: e.Id, MessageId: e.Id })),
      }));
    eventBridge.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map((_, i) => ({ EventId: `e${i}` })),
    }));
  });
  afterAll(async () => {
    sns.restore();
    await hook.close();
    await slack.close();
    await dynamo.close();
  });

  it('one notice per new drift (plan in markdown), none while unchanged, a reminder, then one recovery', async () => {
    await handlerWith()(schedule, context, at(-10)); // repair: start in sync
    forget();
    await report()(schedule, context, at(0));
    // In sync on the first run: recorded silently.
    expect(told()).toEqual({ webhook: [], slack: 0, sns: 0, events: [] });

    const d = sb.store.state.dashboards.find((x) => x.name === 'Platform overview')!;
    d.tiles[0].w = 7; // drift made by hand
    sb.store.changed();
    const drifted = await report()(schedule, context, at(1));
    expect(drifted).toMatchObject({ mode: 'plan', pending: true, driftNotices: 1 });
    expect(told()).toEqual({
      webhook: ['Dashboards Drifted:transition'],
      slack: 1,
      sns: 1,
      events: ['Dashboards Drifted'],
    });
    const notice = hookBodies()[0].notification;
    expect(notice).toMatchObject({ from: 'InSync', to: 'Drifted' });
    expect(notice.message).toMatch(
      /^Dashboards of default drifted from s3:\/\/cloudops-config\/dashboards\/: Plan: 0 to create, 1 dashboard to update/,
    );
    expect(notice.markdown).toContain('```diff');
    expect(notice.markdown).toContain('Platform overview');
    const signed = hook.received[0];
    expect(
      verifyAsDocumented(String(signed.headers['x-cloudops-signature']), signed.body, SIGNING),
    ).toBe(true);
    expect(slack.received[0].body).toContain('Platform overview');
    expect(writes()).toHaveLength(0); // report mode never writes

    forget();
    await report()(schedule, context, at(30)); // the same drift, before the reminder is due
    expect(told()).toEqual({ webhook: [], slack: 0, sns: 0, events: [] });

    await report()(schedule, context, at(125)); // past the reminder interval
    expect(told().webhook).toEqual(['Dashboards Drifted:reminder']);
    expect(hookBodies()[0].notification.message).toMatch(/still differ .* \(2\.1 h\)/);

    forget();
    d.tiles[0].w = 16; // fixed by hand
    sb.store.changed();
    const fixed = await report()(schedule, context, at(130));
    expect(fixed).toMatchObject({ pending: false, driftNotices: 1 });
    expect(told()).toEqual({
      webhook: ['Dashboards Drifted:recovery'],
      slack: 1,
      sns: 1,
      events: ['Dashboards Drifted'],
    });
    expect(hookBodies()[0].notification.message).toBe(
      'Dashboards of default are back in sync with s3://cloudops-config/dashboards/',
    );

    forget();
    await report()(schedule, context, at(131));
    expect(told()).toEqual({ webhook: [], slack: 0, sns: 0, events: [] });
  });

  it('a notice a notifier refused stays pending: the next run delivers it there, and only there', async () => {
    hook.received.length = 0;
    const refusing = await startReceiver([500, 500, 500]); // every attempt of one send
    const original = hook;
    hook = refusing;
    try {
      const d = sb.store.state.dashboards.find((x) => x.name === 'Platform overview')!;
      d.tiles[0].h = 9; // a new drift
      sb.store.changed();
      forget();
      await report()(schedule, context, at(200));
      expect(refusing.received).toHaveLength(3);
      expect(told()).toMatchObject({ slack: 1, sns: 1, events: ['Dashboards Drifted'] });

      forget();
      await report()(schedule, context, at(205)); // same drift, reminder not due
      expect(told()).toEqual({
        webhook: ['Dashboards Drifted:transition'],
        slack: 0,
        sns: 0,
        events: [],
      });
    } finally {
      hook = original;
      await refusing.close();
    }
  });
});
