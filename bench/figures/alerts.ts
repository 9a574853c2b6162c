/**
 * Request counts of the deployed alert path (issue 11): the sync-dashboards and provision-alerts
 * handlers as the stack wires them (createHandler, env as the stack sets it, secrets from the
 * sandbox's Secrets Manager, alert versions in DynamoDB via dynalite), S3 and EventBridge from
 * bench/aws-stubs.ts, the observability service = the sandbox (`current` profile) over HTTP.
 * What the sync emits goes to provision-alerts as EventBridge -> SQS delivers it (the event
 * envelope as the message body, batches of 10).
 *   npx tsx bench/figures/alerts.ts
 *
 * The alert batch figures run at the real limit (10 requests per 10 s per key, API-FACTS.md)
 * under a fake clock shared by the sandbox and provision-alerts' management client: a limiter
 * wait jumps it forward, everything else runs in real time, so 200 creates take seconds and
 * the notes give the fake wall time against the rate-limit floor (ceil(R/10) - 1) x 10 s.
 * The drift figures still run at a generous limit: the sync handler takes no clock yet.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { sandboxEnv } from '../../cli/connect';
import { createVersionTable } from '../../lib/alerts';
import type { Clock } from '../../lib/api/clock';
import { MANAGEMENT_RATE_LIMIT, RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { createHandler as provisionHandler } from '../../functions/provision-alerts/handler';
import { createHandler as syncHandler } from '../../functions/sync-dashboards/handler';
import type { Dashboard } from '../../lib/schemas';
import { startSandbox, type Sandbox } from '../../sandbox/index';
import { startLocalDynamo } from '../../test/support/local-dynamo';
import { startAwsStubs, type AwsStubs } from '../aws-stubs';
import type { Figure } from './types';

const COMMAND = 'npx tsx bench/figures/alerts.ts';
const BUCKET = 'cloudops-config';
const TABLE = 'cloudops-alert-versions';
const FAST = { limit: 100_000, windowMs: 1_000 };
const REAL = MANAGEMENT_RATE_LIMIT;
const context = { getRemainingTimeInMillis: () => 900_000 } as unknown as Context;

/** Real time plus the jumps that sleeps (and `advance`) made: a wait costs no real time. */
function fakeClock() {
  const realStart = performance.now();
  const epoch0 = Date.now();
  let offset = 0;
  const mono = () => performance.now() - realStart + offset;
  const clock: Clock = {
    now: mono,
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      offset += Math.max(0, ms);
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    },
  };
  return {
    clock,
    epoch: () => epoch0 + mono(),
    /** Idle time (e.g. between two SQS batches). */
    advance: (ms: number) => void (offset += ms),
  };
}

/** The least time `requests` management requests need at the real limit. */
const floorMs = (requests: number) =>
  Math.max(0, Math.ceil(requests / REAL.limit) - 1) * REAL.windowMs;

function file(sb: Sandbox, i: number, title = 'Errors', tiles = 1, alertsPerTile = 1): string {
  return JSON.stringify({
    name: `Service ${i}`,
    tiles: Array.from({ length: tiles }, (_, t) => ({
      name: t === 0 ? title : `Tile ${t}`,
      x: (t % 4) * 6,
      y: Math.floor(t / 4) * 4,
      w: 6,
      h: 4,
      series: [
        {
          type: 'time',
          sourceId: sb.info.sourceId,
          aggFn: 'count',
          where: `service:s${i}`,
          whereLanguage: 'lucene',
          groupBy: ['service'],
        },
      ],
      alerts: Array.from({ length: alertsPerTile }, (_, a) => ({
        name: `alert ${t}.${a}`,
        threshold: 10 + a,
        thresholdType: 'above',
        interval: '5m',
        channel: { type: 'webhook', webhookId: sb.info.webhookId },
      })),
    })),
  });
}

interface World {
  sb: Sandbox;
  stubs: AwsStubs;
  /** At the real limit only: the clock the sandbox and provision-alerts share. */
  fake?: ReturnType<typeof fakeClock>;
  sync: ReturnType<typeof syncHandler>;
  provision: ReturnType<typeof provisionHandler>;
  close(): Promise<void>;
}

async function world(options: { realLimit?: boolean } = {}): Promise<World> {
  const fake = options.realLimit ? fakeClock() : undefined;
  const limit = fake ? REAL : FAST;
  const sb = await startSandbox({
    profile: 'current',
    port: 0,
    rateLimits: { management: limit, observability: limit },
    ...(fake ? { now: fake.epoch } : {}),
  });
  const stubs = await startAwsStubs();
  const dynamo = await startLocalDynamo();
  await createVersionTable(dynamo.client, TABLE);
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_S3: stubs.url,
    AWS_ENDPOINT_URL_EVENTBRIDGE: stubs.url,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  const env = {
    ...sandboxEnv(sb.info),
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: `${limit.limit}/${limit.windowMs / 1000}s`,
    CLOUDOPS_OBSERVABILITY_RATE_LIMIT: `${limit.limit}/${limit.windowMs / 1000}s`,
    CLOUDOPS_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    CLOUDOPS_DASHBOARDS_BUCKET: BUCKET,
    CLOUDOPS_DASHBOARDS_PREFIX: 'dashboards',
    CLOUDOPS_EVENT_BUS_NAME: 'cloudops-bus',
    CLOUDOPS_ALERTS_VERSION_TABLE: TABLE,
  };
  return {
    sb,
    stubs,
    ...(fake ? { fake } : {}),
    sync: syncHandler({ env }),
    provision: provisionHandler({
      env,
      dynamo: dynamo.client,
      ...(fake ? { clock: fake.clock, limiters: new RateLimiterRegistry(fake.clock) } : {}),
    }),
    close: async () => {
      await dynamo.close();
      await stubs.close();
      await sb.close();
    },
  };
}

const apiRequests = (sb: Sandbox) =>
  sb.requestLog.entries().filter((e) => e.surface === 'management' || e.surface === 'observability')
    .length;

/** What the sync emitted since `from`, as SQS records of the provision-alerts queue. */
function emittedRecords(stubs: AwsStubs, from: number) {
  const entries = stubs.emitted
    .slice(from)
    .flatMap((b) => (JSON.parse(b) as { Entries?: Record<string, string>[] }).Entries ?? []);
  return entries.map((e) => ({
    messageId: randomUUID(),
    body: JSON.stringify({
      version: '0',
      id: randomUUID(),
      'detail-type': e.DetailType,
      source: e.Source,
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [],
      detail: JSON.parse(e.Detail) as unknown,
    }),
    attributes: { ApproximateReceiveCount: '1' },
  }));
}

async function deliver(w: World, records: ReturnType<typeof emittedRecords>): Promise<void> {
  for (let i = 0; i < records.length; i += 10) {
    const out = await w.provision({ Records: records.slice(i, i + 10) }, context);
    if (out.batchItemFailures.length > 0) {
      throw new Error(`provision-alerts failed records: ${JSON.stringify(out.batchItemFailures)}`);
    }
  }
}

const schedule = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} };
const s3Put = (key: string) => ({
  Records: [
    {
      eventSource: 'aws:s3',
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: BUCKET }, object: { key } },
    },
  ],
});

/** One sync run and provision-alerts on what it emitted; management/observability requests. */
async function syncAndProvision(w: World, event: unknown): Promise<number> {
  const before = apiRequests(w.sb);
  const emitted = w.stubs.emitted.length;
  await w.sync(event, context);
  await deliver(w, emittedRecords(w.stubs, emitted));
  return apiRequests(w.sb) - before;
}

async function driftFigures(): Promise<Figure[]> {
  const w = await world();
  try {
    const files = new Map<string, string>();
    for (let i = 0; i < 100; i += 1) files.set(`dashboards/service-${i}.json`, file(w.sb, i));
    w.stubs.objects.set(BUCKET, files);
    await syncAndProvision(w, s3Put('dashboards/service-0.json')); // first apply: creates
    const noop = await syncAndProvision(w, schedule);
    for (let i = 0; i < 10; i += 1)
      files.set(`dashboards/service-${i}.json`, file(w.sb, i, 'Errors!'));
    const changed = await syncAndProvision(w, schedule);
    return [
      {
        name: 'deployed_noop_drift_requests_n100',
        value: noop,
        goal: '= 1',
        met: noop <= 1,
        command: COMMAND,
        note: "scheduled sync over 100 unchanged files (one alert each), then provision-alerts on what it emitted: the dashboard list only; the alert list is skipped because provision-alerts' version store has every dashboard's alerts settled as declared (same digest), webhook ids are checked only for alerts written, and an unchanged dashboard emits no event",
      },
      {
        name: 'sync_changed_requests_k10_n100',
        value: changed,
        goal: '= 11',
        met: changed <= 11,
        command: COMMAND,
        note: '10 of 100 files rename their alert-bearing tile (no key: the tile gets a new id and the service deletes its alert): 1 dashboard list + 1 alert list (tiles removed) + 10 dashboard writes + 10 alert re-creates by the sync, which claims and settles their versions so provision-alerts adds 0. The goal of 11 counts no alert writes; with the alerts converging the floor is 21 (the alert list is what is left above it)',
      },
    ];
  } finally {
    await w.close();
  }
}

async function batchFigures(): Promise<Figure[]> {
  const w = await world({ realLimit: true });
  const fake = w.fake!;
  try {
    // 10 dashboards of 20 alert-less tiles made through the API (not counted), then 10
    // Dashboard Synced events declaring 20 alerts each, as one SQS batch.
    const { sandboxClients } = await import('../../test/support/sandbox-clients');
    const clients = sandboxClients(w.sb.info, { label: 'bench-setup', timeoutMs: 5_000 });
    const names = Array.from({ length: 20 }, (_, t) => `tile ${t}`);
    const dashes: Dashboard[] = [];
    for (let i = 0; i < 10; i += 1) {
      const parsed = JSON.parse(file(w.sb, i, 'tile 0', 20, 0)) as { tiles: { name: string }[] };
      parsed.tiles.forEach((t, k) => (t.name = names[k]!));
      dashes.push(
        await clients.backend.createDashboard({
          name: `batch ${i}`,
          tiles: parsed.tiles.map(({ alerts: _a, ...t }: Record<string, unknown>) => t),
        } as never),
      );
    }
    clients.close();
    // The set-up's requests leave the key's window before the counted batch starts.
    fake.advance(REAL.windowMs);
    const records = (at: string) =>
      dashes.map((d) => ({
        messageId: randomUUID(),
        body: JSON.stringify({
          source: 'cloudops',
          'detail-type': 'Dashboard Synced',
          id: randomUUID(),
          time: at,
          detail: {
            dashboardKey: `batch/${d.id}`,
            dashboardId: d.id,
            name: d.name,
            sourceFile: `batch/${d.id}.json`,
            syncedAt: at,
            tiles: d.tiles.map((t) => ({ name: t.name, id: t.id })),
            alerts: names.map((tileName, k) => ({
              tileName,
              name: `alert ${k}`,
              threshold: k,
              thresholdType: 'above',
              interval: '5m',
              channel: { type: 'webhook', webhookId: w.sb.info.webhookId },
            })),
          },
        }),
        attributes: { ApproximateReceiveCount: '1' },
      }));
    /** Requests of one delivered batch, its 429 answers and its fake wall time. */
    const count = async (batch: ReturnType<typeof records>) => {
      const log = () =>
        w.sb.requestLog
          .entries()
          .filter((e) => e.surface === 'management' || e.surface === 'observability');
      const before = log().length;
      const started = fake.clock.now();
      await deliver(w, batch);
      const answered = log().slice(before);
      return {
        requests: answered.length,
        status429: answered.filter((e) => e.status === 429).length,
        wallMs: fake.clock.now() - started,
      };
    };
    const timing = (r: { requests: number; status429: number; wallMs: number }) =>
      `; at the real limit (${REAL.limit} per ${REAL.windowMs / 1000} s, fake clock): ` +
      `${(r.wallMs / 1000).toFixed(1)} s over a ${floorMs(r.requests) / 1000} s floor` +
      `${floorMs(r.requests) > 0 ? ` (${(r.wallMs / floorMs(r.requests)).toFixed(3)}x)` : ''}` +
      `, ${r.status429} answered 429`;
    const t0 = Date.now() - 60_000;
    const create = await count(records(new Date(t0).toISOString()));
    fake.advance(REAL.windowMs); // the next batch comes later
    const steady = await count(records(new Date(t0 + 1_000).toISOString()));
    return [
      {
        name: 'alerts_batch_requests_10x20',
        value: create.requests,
        goal: '<= 202',
        met: create.requests <= 202,
        command: COMMAND,
        note: `one SQS batch of 10 Dashboard Synced events, 20 new alerts each, through the provision-alerts handler${timing(create)} (the function's timeout is 2 min)`,
      },
      {
        name: 'alerts_batch_requests_steady_10',
        value: steady.requests,
        goal: '<= 1',
        met: steady.requests <= 1,
        command: COMMAND,
        note: `the same 10 declarations again (newer events): the version store shows them settled${timing(steady)}`,
      },
    ];
  } finally {
    await w.close();
  }
}

export async function measure(): Promise<Figure[]> {
  return [...(await driftFigures()), ...(await batchFigures())];
}

if (process.argv[1] === import.meta.filename) {
  console.log(JSON.stringify(await measure(), null, 2));
}
