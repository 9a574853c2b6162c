/**
 * Ten thousand dashboards: the deployed sync's memory, requests and resumption, measured on the
 * handler as the stack bundles it (bench/child/sync-run.ts, built with the stack's esbuild
 * options, run by the deployed Node when the bench can have it) in a child process whose fake
 * clock moves with this process's: the sandbox enforces the key's real limit (10 requests per
 * 10 s) on that time line and the Lambda's deadline runs on it, so a 300 s run costs seconds.
 * S3 and EventBridge are bench/aws-stubs.ts (ListObjectsV2 in pages of 1,000 with ETags), the
 * alert version table is dynalite, the service is the sandbox (`current` profile).
 *
 * - sync_noop_rss_mb_n10000: peak RSS (maxRSS) of a scheduled no-op over 10,000 files of about
 *   1 KiB (one in ten declares an alert), in a fresh container each: the first run after the
 *   files were applied (no manifest yet: every file read) and the steady hourly one (manifest);
 *   the figure is the larger.
 * - sync_noop_requests_n10000: the steady no-op's management requests; the note gives its S3
 *   calls (list pages, manifest read, files read).
 * - sync_first_apply_runs_n1000: invocations until 1,000 new dashboards (one alert each) are all
 *   applied, each run started by the previous one's continuation event, against
 *   ⌈(2N + 2) / R⌉ with R the requests one run can make at the limit before its deadline.
 *
 *   npx tsx bench/figures/sync-scale.ts
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import {
  MANIFEST_KEY,
  SYNC_FUNCTION_MEMORY_MB,
  SYNC_FUNCTION_TIMEOUT,
  SYNC_PROCESS_ENV,
} from '../../cdk/constructs/dashboard-sync';
import { sandboxEnv } from '../../cli/connect';
import { deadlineMarginMs } from '../../functions/runtime';
import { createHandler } from '../../functions/sync-dashboards/handler';
import { MANAGEMENT_RATE_LIMIT, RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { DASHBOARD_SYNC_CONTINUED } from '../../lib/dashboards/continuation';
import type { SyncFunctionSummary } from '../../lib/dashboards/function-run';
import type { Sandbox } from '../../sandbox/index';
import type { LocalDynamo } from '../../test/support/local-dynamo';
import type { AwsStubs } from '../aws-stubs';
import { s3PutEvent, scheduledEvent } from '../events';
import { buildWithStackOptions } from '../bundles';
import type { FakeClock } from '../fake-clock';
import { startLimitedWorld } from '../limited-world';
import { deployedNode } from '../node-runtime';
import type { Figure } from './types';

const COMMAND = 'npx tsx bench/figures/sync-scale.ts';
const ROOT = path.resolve(import.meta.dirname, '../..');
const BUCKET = 'cloudops-bench-config';
const PREFIX = 'dashboards/';
const TABLE = 'cloudops-alert-versions';
const REAL = MANAGEMENT_RATE_LIMIT;
const LAMBDA_MS = SYNC_FUNCTION_TIMEOUT.toMilliseconds();
const MEMORY_GOAL_MB = 256;
const NOOP_FILES = 10_000;
const FIRST_APPLY = 1_000;

/** A file of about 1 KiB: four chart tiles; `alert`: one alert on the first. */
function dashboardFile(sb: Sandbox, n: number, alert: boolean): string {
  const series = (i: number) =>
    `    series:\n      - { type: time, sourceId: "${sb.info.sourceId}", aggFn: count, where: "service:s${n} tile:${i}", whereLanguage: lucene, groupBy: [service] }\n`;
  const alerts = alert
    ? `    alerts:\n      - { name: "errors ${n}", threshold: 10, thresholdType: above, interval: 5m, channel: { type: webhook, webhookId: "${sb.info.webhookId}" } }\n`
    : '';
  let tiles = '';
  for (let i = 0; i < 4; i++) {
    tiles += `  - name: tile ${i}\n    x: ${(i % 2) * 12}\n    y: ${Math.floor(i / 2) * 4}\n    w: 12\n    h: 4\n`;
    tiles += series(i) + (i === 0 ? alerts : '');
  }
  return `name: Scale service ${n}\ntags: [scale, team-${n % 7}]\ntiles:\n${tiles}`;
}

interface World {
  sb: Sandbox;
  stubs: AwsStubs;
  dynamo: LocalDynamo;
  fake: FakeClock;
  files: Map<string, string>;
  /** The sync's environment as the stack sets it (connection from the sandbox). */
  env: Record<string, string>;
  /** What Lambda gives the process: region, credentials, this world's AWS endpoints. */
  processEnv: Record<string, string>;
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const { fake, sb, stubs, dynamo, awsEnv, close } = await startLimitedWorld(TABLE);
  const files = new Map<string, string>();
  stubs.objects.set(BUCKET, files);
  const rate = `${REAL.limit}/${REAL.windowMs / 1000}s`;
  return {
    sb,
    stubs,
    dynamo,
    fake,
    files,
    env: {
      ...sandboxEnv(sb.info),
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: rate,
      CLOUDOPS_OBSERVABILITY_RATE_LIMIT: rate,
      CLOUDOPS_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
      CLOUDOPS_DASHBOARDS_BUCKET: BUCKET,
      CLOUDOPS_DASHBOARDS_PREFIX: PREFIX,
      CLOUDOPS_DASHBOARDS_OWNER: 'bench',
      CLOUDOPS_EVENT_BUS_NAME: 'cloudops-bench',
      CLOUDOPS_ALERTS_VERSION_TABLE: TABLE,
      CLOUDOPS_DASHBOARDS_MANIFEST_KEY: MANIFEST_KEY,
    },
    processEnv: awsEnv,
    close,
  };
}

/**
 * What the Lambda Node.js runtime starts node with for a function of `memoryMb`: a tenth for the
 * young generation (half of it per semi-space), the rest for the old generation.
 */
function lambdaHeapFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
  ];
}

interface RunResult {
  ok: boolean;
  summary?: SyncFunctionSummary;
  error?: string;
  cpuMs: number;
  /** Fake time the invocation took. */
  fakeMs: number;
  maxRssMB: number;
}

/** One container: the bundled handler in a child process, its clock kept in step with ours. */
class Container {
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private waiting?: (m: Record<string, unknown>) => void;

  constructor(node: string, bundle: string, w: World) {
    this.child = fork(bundle, [], {
      execPath: node,
      // Not this process's flags (tsx's loader): the heap limits Lambda's Node bootstrap sets.
      execArgv: lambdaHeapFlags(SYNC_FUNCTION_MEMORY_MB),
      // Lambda's process environment, plus what the stack sets for the process itself (glibc).
      env: { ...w.processEnv, ...SYNC_PROCESS_ENV },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    // Into our own output, which bench/run.ts scans for secrets.
    this.child.stdout!.on('data', (t: Buffer) => process.stderr.write(t));
    this.child.stderr!.on('data', (t: Buffer) => process.stderr.write(t));
    this.exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.on('message', (m: Record<string, unknown>) => {
      if (m.type === 'sleep') {
        w.fake.advance(m.ms as number);
        this.child.send({ type: 'slept', id: m.id });
      } else this.waiting?.(m);
    });
  }

  private next(): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      void this.exited.then((code) => reject(new Error(`sync container exited (${code})`)));
    });
  }

  async start(env: Record<string, string>): Promise<void> {
    await this.next(); // up
    const ready = this.next();
    this.child.send({ type: 'init', env, lambdaMs: LAMBDA_MS });
    await ready;
  }

  async invoke(event: unknown, advanceMs: number, w: World): Promise<RunResult> {
    w.fake.advance(advanceMs);
    const answer = this.next();
    this.child.send({ type: 'invoke', event, advanceMs });
    const a = await answer;
    return a as unknown as RunResult;
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}

const schedule = scheduledEvent;
const s3Put = (key: string) => s3PutEvent(BUCKET, key);

const apiRequests = (sb: Sandbox) =>
  sb.requestLog
    .entries()
    .filter((e) => e.surface === 'management' || e.surface === 'observability');

/** S3 calls by kind since `from`: list pages, the manifest read and write, dashboard files read. */
function s3Counts(stubs: AwsStubs, from: number) {
  const calls = stubs.calls.slice(from);
  return {
    listPages: calls.filter((c) => c === 'S3 ListObjectsV2').length,
    manifestReads: calls.filter((c) => c === `S3 GetObject ${MANIFEST_KEY}`).length,
    manifestWrites: calls.filter((c) => c === `S3 PutObject ${MANIFEST_KEY}`).length,
    filesRead: calls.filter((c) => c.startsWith(`S3 GetObject ${PREFIX}`)).length,
  };
}

/** The 10,000 dashboards applied as a first sync would (in this process, not measured). */
async function applyInProcess(w: World): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const aws = {
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  };
  const s3 = new S3Client({ ...aws, endpoint: w.stubs.url, forcePathStyle: true });
  const eventBridge = new EventBridgeClient({ ...aws, endpoint: w.stubs.url });
  const dynamo = new DynamoDBClient({ ...aws, endpoint: w.dynamo.endpoint });
  try {
    const handler = createHandler({
      env: w.env,
      s3,
      eventBridge,
      dynamo,
      clock: w.fake.clock,
      limiters: new RateLimiterRegistry(w.fake.clock),
    });
    // No deadline (no remaining time in the context): one long run.
    const summary = await handler(s3Put(`${PREFIX}d00000.yaml`), {} as Context);
    if (summary.counts?.create !== NOOP_FILES)
      throw new Error(`bench: set-up created ${summary.counts?.create} of ${NOOP_FILES}`);
  } finally {
    s3.destroy();
    eventBridge.destroy();
    dynamo.destroy();
  }
}

interface NoopRun extends RunResult {
  api: number;
  s3: ReturnType<typeof s3Counts>;
}

async function noopFigures(node: string, bundle: string): Promise<Figure[]> {
  const w = await world();
  try {
    for (let n = 0; n < NOOP_FILES; n++)
      w.files.set(
        `${PREFIX}d${String(n).padStart(5, '0')}.yaml`,
        dashboardFile(w.sb, n, n % 10 === 0),
      );
    await applyInProcess(w);
    // The run before the manifest existed: the first measured run reads every file.
    w.files.delete(MANIFEST_KEY);
    const run = async (): Promise<NoopRun> => {
      const container = new Container(node, bundle, w);
      try {
        await container.start(w.env);
        w.sb.requestLog.clear();
        const from = w.stubs.calls.length;
        const result = await container.invoke(schedule(), 3_600_000, w);
        if (!result.ok) throw new Error(`bench: no-op run failed: ${result.error}`);
        return { ...result, api: apiRequests(w.sb).length, s3: s3Counts(w.stubs, from) };
      } finally {
        container.stop();
      }
    };
    const cold = await run();
    // Peak RSS moves with the collector's timing: the steady run is measured thrice, the
    // largest kept.
    const warms = [await run(), await run(), await run()];
    const warm = warms.reduce((a, b) => (b.maxRssMB > a.maxRssMB ? b : a));
    return noopResults(
      cold,
      warm,
      warms.map((r) => r.maxRssMB),
    );
  } finally {
    await w.close();
  }
}

function noopResults(cold: NoopRun, warm: NoopRun, warmRssMB: number[]): Figure[] {
  const mb = (x: number) => Math.round(x * 10) / 10;
  const rss = Math.max(cold.maxRssMB, warm.maxRssMB);
  const s3 = (r: NoopRun) =>
    `${r.s3.listPages} ListObjectsV2 page(s), ${r.s3.manifestReads} manifest read, ${r.s3.filesRead} file(s) read, ${r.s3.manifestWrites} manifest write`;
  const run = (label: string, r: NoopRun) =>
    `${label}: ${mb(r.maxRssMB)} MB, ${r.api} API request(s), ${s3(r)}, ${Math.round(r.cpuMs)} ms CPU, ${(r.fakeMs / 1000).toFixed(1)} s of the ${LAMBDA_MS / 1000} s timeout`;
  const listOnce = warm.s3.listPages === Math.ceil(NOOP_FILES / 1000);
  return [
    {
      name: 'sync_noop_rss_mb_n10000',
      value: mb(rss),
      goal: `<= ${MEMORY_GOAL_MB}`,
      met:
        rss <= MEMORY_GOAL_MB && cold.summary?.pending === false && warm.summary?.pending === false,
      command: COMMAND,
      note: `peak RSS (maxRSS) of the bundled handler on a scheduled no-op over ${NOOP_FILES} files (one in ten with an alert), a fresh container each; ${run('first run after the apply, no manifest yet', cold)}; ${run('steady run with the manifest (largest of three)', warm)}; the three steady peaks: ${warmRssMB.map(mb).join(', ')} MB`,
    },
    {
      name: 'sync_noop_requests_n10000',
      value: warm.api,
      goal: '= 1 management + 1 S3 list',
      met: warm.api === 1 && listOnce && warm.s3.filesRead === 0,
      command: COMMAND,
      note: `steady no-op over ${NOOP_FILES} files: ${warm.api} management request (the dashboard list), one S3 listing of ${warm.s3.listPages} ListObjectsV2 pages (1,000 keys a page), plus ${warm.s3.manifestReads} GetObject of the manifest that the goal does not count, ${warm.s3.filesRead} dashboard files read, ${warm.s3.manifestWrites} manifest writes; ${Math.round(warm.cpuMs)} ms CPU (the first run without a manifest: ${cold.api} request(s), ${cold.s3.filesRead} files read, ${Math.round(cold.cpuMs)} ms CPU)`,
    },
  ];
}

/** The continuation events the runs put on the bus since `from`, as the rule delivers them. */
function continuations(stubs: AwsStubs, from: number) {
  return stubs.emitted
    .slice(from)
    .flatMap((b) => (JSON.parse(b) as { Entries?: Record<string, string>[] }).Entries ?? [])
    .filter((e) => e.DetailType === DASHBOARD_SYNC_CONTINUED)
    .map((e) => ({
      version: '0',
      id: randomUUID(),
      source: e.Source,
      'detail-type': e.DetailType,
      detail: JSON.parse(e.Detail) as unknown,
    }));
}

/** Per run: requests, what it applied and left, fake seconds. */
interface ChainRun {
  requests: number;
  /** Undefined for a run that finished (it did not stop). */
  applied: number | undefined;
  pending: number;
  seconds: number;
}

async function firstApplyFigure(node: string, bundle: string): Promise<Figure> {
  const w = await world();
  const container = new Container(node, bundle, w);
  try {
    for (let n = 0; n < FIRST_APPLY; n++)
      w.files.set(`${PREFIX}d${String(n).padStart(5, '0')}.yaml`, dashboardFile(w.sb, n, true));
    await container.start(w.env);
    const runs: ChainRun[] = [];
    let event: unknown = s3Put(`${PREFIX}d00000.yaml`);
    let failure: string | undefined;
    while (event && runs.length < 30) {
      const before = apiRequests(w.sb).length;
      const emitted = w.stubs.emitted.length;
      // EventBridge hands the continuation to the function about a second later.
      const result = await container.invoke(event, runs.length === 0 ? REAL.windowMs : 1_000, w);
      if (!result.ok) failure = result.error;
      const stopped = result.summary?.stopped;
      runs.push({
        requests: apiRequests(w.sb).length - before,
        applied: stopped?.applied,
        pending: stopped?.pending ?? 0,
        seconds: Math.round(result.fakeMs / 1000),
      });
      event = result.ok && stopped?.continued ? continuations(w.stubs, emitted)[0] : undefined;
    }
    return firstApplyResult(w, runs, failure);
  } finally {
    container.stop();
    await w.close();
  }
}

function firstApplyResult(w: World, runs: ChainRun[], failure: string | undefined): Figure {
  const owned = new Map<string, number>();
  for (const d of w.sb.store.state.dashboards) {
    const tag = d.tags.find((t) => /^cloudops:[0-9a-f]{20}$/.test(t));
    if (tag) owned.set(tag, (owned.get(tag) ?? 0) + 1);
  }
  const alerts = w.sb.store.state.alerts.filter((a) => a.name?.startsWith('errors '));
  const duplicates =
    [...owned.values()].reduce((n, c) => n + c - 1, 0) +
    alerts.length -
    new Set(alerts.map((a) => a.name)).size;
  const converged =
    owned.size === FIRST_APPLY && new Set(alerts.map((a) => a.name)).size === FIRST_APPLY;
  // What one run may send at the limit before its deadline: a burst per window started.
  const budgetMs = LAMBDA_MS - deadlineMarginMs(LAMBDA_MS);
  const perRun = REAL.limit * Math.ceil(budgetMs / REAL.windowMs);
  const goal = Math.ceil((2 * FIRST_APPLY + 2) / perRun);
  const total = runs.reduce((n, r) => n + r.requests, 0);
  const status429 = apiRequests(w.sb).filter((e) => e.status === 429).length;
  return {
    name: 'sync_first_apply_runs_n1000',
    value: runs.length,
    goal: `<= ${goal} (⌈(2N + 2) / ${perRun}⌉), 0 duplicates`,
    met: runs.length <= goal && duplicates === 0 && converged && !failure,
    command: COMMAND,
    note: `${FIRST_APPLY} new dashboards with one alert each, from one S3 event, each further run started by the previous one's continuation event; ${perRun} requests per run = ${REAL.limit} per ${REAL.windowMs / 1000} s over the ${LAMBDA_MS / 1000} s timeout less deadlineFrom's ${deadlineMarginMs(LAMBDA_MS) / 1000} s margin (fake clock); runs (requests/applied/left/fake s, the last one finished): ${runs.map((r) => `${r.requests}/${r.applied ?? 'finished'}/${r.pending}/${r.seconds}`).join(', ')}; ${total} requests in all (2N + 2 = ${2 * FIRST_APPLY + 2}; each run lists the dashboards and the alerts once, and one started a second after the last waits out part of the key's window that run used), ${status429} answered 429; afterwards ${owned.size} dashboards and ${alerts.length} alerts of these files, ${duplicates} duplicates${failure ? `; a run failed: ${failure}` : ''}`,
  };
}

/** The child built with the stack's esbuild options, and the Node it runs on. */
async function container(): Promise<{
  node: string;
  bundle: string;
  work: string;
  nodeNote: string;
}> {
  const work = mkdtempSync(path.join(tmpdir(), 'cloudops-sync-scale-'));
  const built = await buildWithStackOptions(path.join(ROOT, 'bench/child/sync-run.ts'), work);
  const runtime = deployedNode();
  return {
    node: runtime.ok ? runtime.binary : process.execPath,
    bundle: built.file,
    work,
    nodeNote: runtime.ok
      ? `node ${runtime.version}`
      : `node ${process.version} (${runtime.reason})`,
  };
}

export async function measure(): Promise<Figure[]> {
  const c = await container();
  try {
    const figures = [
      ...(await noopFigures(c.node, c.bundle)),
      await firstApplyFigure(c.node, c.bundle),
    ];
    return figures.map((f) => ({ ...f, note: `${f.note}; on ${c.nodeNote}` }));
  } finally {
    rmSync(c.work, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  console.log(JSON.stringify(await measure(), null, 2));
}
