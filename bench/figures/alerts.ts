/**
 * Request counts of the deployed alert path (issue 11): the sync-dashboards and provision-alerts
 * handlers as the stack wires them (createHandler, env as the stack sets it, secrets from the
 * sandbox's Secrets Manager, alert versions in DynamoDB via dynalite), S3 and EventBridge from
 * bench/aws-stubs.ts, the observability service = the sandbox (`current` profile) over HTTP.
 * What the sync emits goes to provision-alerts as EventBridge -> SQS delivers it (the event
 * envelope as the message body, batches of 10).
 *   npx tsx bench/figures/alerts.ts
 *
 * Every figure runs at the real limit (10 requests per 10 s per key, API-FACTS.md) under a
 * fake clock shared by the sandbox and both handlers' API clients (and provision-alerts'
 * deadline, from its deployed timeout; handed-back records return as SQS would): a limiter
 * wait jumps it forward, everything else runs in real time, so 200 creates take seconds and
 * the notes give the fake wall time against the rate-limit floor (ceil(R/10) - 1) x 10 s.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { sandboxEnv } from '../../cli/connect';
import { MANAGEMENT_RATE_LIMIT, RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { createHandler as provisionHandler } from '../../functions/provision-alerts/handler';
import { createHandler as syncHandler } from '../../functions/sync-dashboards/handler';
import { deadlineMarginMs } from '../../functions/runtime';
import type { Dashboard } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import type { AwsStubs } from '../aws-stubs';
import type { FakeClock } from '../fake-clock';
import { startLimitedWorld } from '../limited-world';
import { ALERTS_FUNCTION_TIMEOUT } from '../../cdk/constructs/alert-provisioning';
import type { Figure } from './types';

const COMMAND = 'npx tsx bench/figures/alerts.ts';
const BUCKET = 'cloudops-config';
const TABLE = 'cloudops-alert-versions';
const REAL = MANAGEMENT_RATE_LIMIT;
/** provision-alerts' timeout as the stack deploys it. */
const LAMBDA_MS = ALERTS_FUNCTION_TIMEOUT.toMilliseconds();
const context = { getRemainingTimeInMillis: () => LAMBDA_MS } as unknown as Context;

/** The least time `requests` management requests need at the real limit. */
const floorMs = (requests: number) =>
  Math.max(0, Math.ceil(requests / REAL.limit) - 1) * REAL.windowMs;

/** The tiles of dashboard `i` as its file declares them, alerts included. */
function fileTiles(sb: Sandbox, i: number, title = 'Errors', tiles = 1, alertsPerTile = 1) {
  return Array.from({ length: tiles }, (_, t) => ({
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
  }));
}

function file(sb: Sandbox, i: number, title = 'Errors'): string {
  return JSON.stringify({ name: `Service ${i}`, tiles: fileTiles(sb, i, title) });
}

interface World {
  sb: Sandbox;
  stubs: AwsStubs;
  /** The clock the sandbox and both handlers share (the real limit, without the waiting). */
  fake: FakeClock;
  sync: ReturnType<typeof syncHandler>;
  provision: ReturnType<typeof provisionHandler>;
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const { fake, sb, stubs, dynamo, awsEnv, close } = await startLimitedWorld(TABLE);
  const limit = REAL;
  Object.assign(process.env, awsEnv);
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
    fake,
    sync: syncHandler({ env, clock: fake.clock, limiters: new RateLimiterRegistry(fake.clock) }),
    provision: provisionHandler({
      env,
      dynamo: dynamo.client,
      clock: fake.clock,
      limiters: new RateLimiterRegistry(fake.clock),
      // The Lambda's deadline on the fake time line, with deadlineFrom's margin.
      deadline: () => ({ signal: fake.timeout(LAMBDA_MS - deadlineMarginMs(LAMBDA_MS)) }),
    }),
    close,
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

interface Delivery {
  invocations: number;
  /** Records handed back (batchItemFailures) and delivered again. */
  redelivered: number;
}

/**
 * Delivers records as SQS does: batches of 10; a record the function hands back (e.g. not
 * started before its deadline) comes again after the visibility timeout (6x the function's).
 */
async function deliver(w: World, records: ReturnType<typeof emittedRecords>): Promise<Delivery> {
  const outcome: Delivery = { invocations: 0, redelivered: 0 };
  let queue = records;
  for (let round = 1; queue.length > 0; round += 1) {
    if (round > 10) throw new Error(`provision-alerts kept failing ${queue.length} records`);
    if (round > 1) w.fake.advance(6 * LAMBDA_MS);
    const failed: typeof records = [];
    for (let i = 0; i < queue.length; i += 10) {
      const batch = queue.slice(i, i + 10);
      outcome.invocations += 1;
      const out = await w.provision({ Records: batch }, context);
      const ids = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
      for (const r of batch) {
        if (!ids.has(r.messageId)) continue;
        const count = Number(r.attributes?.ApproximateReceiveCount ?? '1') + 1;
        failed.push({ ...r, attributes: { ApproximateReceiveCount: String(count) } });
      }
    }
    outcome.redelivered += failed.length;
    queue = failed;
  }
  return outcome;
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
async function syncAndProvision(w: World, event: unknown) {
  w.fake.advance(REAL.windowMs); // runs are far apart: each starts with a full window
  const before = apiRequests(w.sb);
  const started = w.fake.clock.now();
  const emitted = w.stubs.emitted.length;
  await w.sync(event, context);
  await deliver(w, emittedRecords(w.stubs, emitted));
  return {
    requests: apiRequests(w.sb) - before,
    wallMs: w.fake.clock.now() - started,
  };
}

/** `; 12.0 s at the real limit (fake clock)` */
const wall = (r: { wallMs: number }) =>
  `; ${(r.wallMs / 1000).toFixed(1)} s at the real limit (${REAL.limit} per ${REAL.windowMs / 1000} s, fake clock)`;

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
        value: noop.requests,
        goal: '= 1',
        met: noop.requests <= 1,
        command: COMMAND,
        note: `scheduled sync over 100 unchanged files (one alert each), then provision-alerts on what it emitted: the dashboard list only; the alert list is skipped because provision-alerts' version store has every dashboard's alerts settled as declared (same digest), webhook ids are checked only for alerts written, and an unchanged dashboard emits no event${wall(noop)}`,
      },
      {
        name: 'sync_changed_requests_k10_n100',
        value: changed.requests,
        goal: '= 11',
        met: changed.requests <= 11,
        command: COMMAND,
        note: `10 of 100 files rename their alert-bearing tile (no key: the tile gets a new id and the service deletes its alert): 1 dashboard list + 1 alert list (tiles removed) + 10 dashboard writes + 10 alert re-creates by the sync, which claims and settles their versions so provision-alerts adds 0. The goal of 11 counts no alert writes; with the alerts converging the floor is 21 (the alert list is what is left above it)${wall(changed)}`,
      },
    ];
  } finally {
    await w.close();
  }
}

/**
 * 10 dashboards of `perDashboard` alert-less tiles made through the API (not counted), then 10
 * Dashboard Synced events declaring one alert per tile, as one SQS batch; then the same
 * declarations again. `alerts` is what the service holds afterwards.
 */
async function batchRun(perDashboard: number) {
  const w = await world();
  const fake = w.fake;
  try {
    const { sandboxClients } = await import('../../test/support/sandbox-clients');
    const clients = sandboxClients(w.sb.info, { label: 'bench-setup', timeoutMs: 5_000 });
    const names = Array.from({ length: perDashboard }, (_, t) => `tile ${t}`);
    const dashes: Dashboard[] = [];
    for (let i = 0; i < 10; i += 1) {
      const tiles = fileTiles(w.sb, i, 'tile 0', perDashboard, 0).map(
        ({ alerts: _a, ...t }, k) => ({ ...t, name: names[k] }),
      );
      dashes.push(await clients.backend.createDashboard({ name: `batch ${i}`, tiles }));
    }
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
      const delivery = await deliver(w, batch);
      const answered = log().slice(before);
      return {
        ...delivery,
        requests: answered.length,
        status429: answered.filter((e) => e.status === 429).length,
        wallMs: fake.clock.now() - started,
      };
    };
    const t0 = Date.now() - 60_000;
    const create = await count(records(new Date(t0).toISOString()));
    fake.advance(REAL.windowMs); // the next batch comes later
    const steady = await count(records(new Date(t0 + 1_000).toISOString()));
    fake.advance(REAL.windowMs); // the count below is not part of the figure
    // Ours only (the sandbox seeds a few alerts of its own); a duplicate shares its key.
    const ids = new Set(dashes.map((d) => d.id));
    const ours = (await clients.backend.listAlerts()).filter((a) => ids.has(a.dashboardId ?? ''));
    const alerts = ours.length;
    const distinct = new Set(ours.map((a) => `${a.dashboardId} ${a.tileId} ${a.name}`)).size;
    clients.close();
    return { create, steady, alerts, duplicates: alerts - distinct };
  } finally {
    await w.close();
  }
}

type Counted = Awaited<ReturnType<typeof batchRun>>['create'];
const timing = (r: Counted) =>
  `; at the real limit (${REAL.limit} per ${REAL.windowMs / 1000} s, fake clock) with the ` +
  `deployed ${LAMBDA_MS / 1000} s timeout: ${r.invocations} invocation(s), ` +
  `${r.redelivered} record(s) handed back for redelivery, ` +
  `${(r.wallMs / 1000).toFixed(1)} s (redelivery waits included) against a ` +
  `${floorMs(r.requests) / 1000} s floor, ${r.status429} answered 429`;

async function batchFigures(): Promise<Figure[]> {
  const fits = await batchRun(20);
  // Twice the work one invocation's budget holds: the deadline cuts the batch, unfinished
  // records come back, and the alerts still converge with one alert per declaration.
  const over = await batchRun(40);
  const overGoal = 400 + over.create.invocations;
  return [
    {
      name: 'alerts_batch_requests_10x20',
      value: fits.create.requests,
      goal: '<= 202',
      met: fits.create.requests <= 202,
      command: COMMAND,
      note: `one SQS batch of 10 Dashboard Synced events, 20 new alerts each, through the provision-alerts handler${timing(fits.create)}`,
    },
    {
      name: 'alerts_batch_requests_steady_10',
      value: fits.steady.requests,
      goal: '<= 1',
      met: fits.steady.requests <= 1,
      command: COMMAND,
      note: `the same 10 declarations again (newer events): the version store shows them settled${timing(fits.steady)}`,
    },
    {
      name: 'alerts_batch_over_deadline_requests_10x40',
      value: over.create.requests,
      goal: '<= 400 creates + 1 alert list per invocation; 400 alerts, no duplicate',
      met: over.create.requests <= overGoal && over.alerts === 400 && over.duplicates === 0,
      command: COMMAND,
      note: `one SQS batch of 10 events with 40 new alerts each (about 400 s of the key's budget, more than one invocation)${timing(over.create)}; ${over.alerts} alerts of these dashboards on the service afterwards, ${over.duplicates} duplicates (goal here: <= ${overGoal} requests; a session that finishes lists twice, up front and once to confirm its creates, which this goal did not allow for)`,
    },
  ];
}

export async function measure(): Promise<Figure[]> {
  return [...(await driftFigures()), ...(await batchFigures())];
}

if (process.argv[1] === import.meta.filename) {
  console.log(JSON.stringify(await measure(), null, 2));
}
