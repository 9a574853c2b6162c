/**
 * Cold start, peak memory, and rotation API calls: each sample is a fresh `node` process
 * (bench/child/invoke.mjs) that imports a deployed bundle and runs one real event against a
 * fresh sandbox (+ dynalite for DynamoDB, + bench/aws-stubs.ts for S3/EventBridge/SNS), with
 * the function's environment as the stack sets it (secrets from the Secrets Manager endpoint).
 * Function and baseline alternate within a round, against the same world.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { build } from 'esbuild';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  GetSecretValueCommand,
  ListSecretVersionIdsCommand,
  RotateSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { connectFromEnv, sandboxEnv } from '../cli/connect';
import { dashboardSyncedEvents, directorySource, syncDashboards } from '../lib/dashboards';
import { createVersionTable } from '../lib/alerts/versions-dynamo';
import { startLocalDynamo, type LocalDynamo } from '../test/support/local-dynamo';
import { startSandbox, type Sandbox } from '../sandbox/index';
import type { RotationEvent } from '../sandbox/secrets-manager';
import { startAwsStubs, type AwsStubs } from './aws-stubs';
import type { FunctionName } from './bundles';
import type { Capture } from './capture';

const ROOT = path.resolve(import.meta.dirname, '..');
const EXAMPLES = path.join(ROOT, 'dashboards');
const BUCKET = 'cloudops-bench-config';
const PREFIX = 'dashboards/';
const TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:cloudops-bench';
const BUS = 'cloudops-bench';
const TABLE = 'cloudops-pipe-watchdog';
const VERSION_TABLE = 'cloudops-alert-versions';
const FAST = { limit: 100_000, windowMs: 1_000 };

export interface ChildRun {
  ok: boolean;
  error?: string;
  importMs: number;
  invokeMs: number;
  maxRssKiB: number;
}

/** One world per function and round: nothing one sample did leaks into the next. */
interface World {
  sb: Sandbox;
  stubs: AwsStubs;
  dynamo?: LocalDynamo;
  sm: SecretsManagerClient;
  env: Record<string, string>;
  /** Where the sandbox's RotateSecret sends its steps (the child under test). */
  rotator?: Child;
  close(): Promise<void>;
}

export interface Scenario {
  /** The real event (rotate-key: the four steps come from RotateSecret instead). */
  event(world: World): Promise<unknown>;
  /** The ids the baseline needs, as its event. */
  baselineEvent(world: World): unknown;
  /** Function-specific env, as the stack's construct sets it. */
  env(world: World): Record<string, string>;
  needsDynamo?: boolean;
}

/** Compiles bench/child/invoke.ts to plain JS (no bundling) so `node` runs it as is. */
export async function runnerFile(dir: string): Promise<string> {
  const outfile = path.join(dir, 'invoke.mjs');
  await build({
    entryPoints: [path.join(ROOT, 'bench/child/invoke.ts')],
    outfile,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
  });
  return outfile;
}

let RUNNER = '';

class Child {
  private readonly proc: ChildProcess;
  private readonly waiting: ((message: Record<string, unknown>) => void)[] = [];
  private readonly exited: Promise<number | null>;

  constructor(bundle: string, env: Record<string, string>, label: string, capture: Capture) {
    this.proc = spawn(process.execPath, [RUNNER, bundle], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.proc
      .stdout!.setEncoding('utf8')
      .on('data', (t: string) => capture.add(`${label} stdout`, t));
    this.proc
      .stderr!.setEncoding('utf8')
      .on('data', (t: string) => capture.add(`${label} stderr`, t));
    this.proc.on('message', (m: Record<string, unknown>) => {
      if (m.type === 'result') capture.add(`${label} result`, JSON.stringify(m));
      this.waiting.shift()?.(m);
    });
    this.exited = new Promise((resolve) => this.proc.once('exit', resolve));
  }

  private next(): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.waiting.push(resolve);
      void this.exited.then((code) => reject(new Error(`bench child exited early (${code})`)));
    });
  }

  async ready(): Promise<void> {
    await this.next();
  }

  async invoke(event: unknown): Promise<Record<string, unknown>> {
    const answer = this.next();
    this.proc.send({ type: 'invoke', event });
    return answer;
  }

  async done(): Promise<number> {
    const answer = this.next();
    this.proc.send({ type: 'done' });
    const stats = await answer;
    await this.exited;
    return stats.maxRssKiB as number;
  }

  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}

async function startWorld(scenario: Scenario): Promise<World> {
  const world = {} as World;
  world.sb = await startSandbox({
    profile: 'spec',
    port: 0,
    rateLimits: { management: FAST, observability: FAST },
    invokeRotation: async (_arn, event: RotationEvent) => {
      const answer = await world.rotator!.invoke(event);
      if (!answer.ok) throw new Error(String(answer.error));
    },
  });
  world.stubs = await startAwsStubs();
  world.dynamo = scenario.needsDynamo ? await startLocalDynamo(TABLE) : undefined;
  if (world.dynamo) await createVersionTable(world.dynamo.client, VERSION_TABLE);
  world.sm = new SecretsManagerClient({
    endpoint: world.sb.info.secretsManagerUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  const { info } = world.sb;
  world.env = {
    // What Lambda and the stack give every function (cdk/constructs/function.ts).
    NODE_OPTIONS: '--enable-source-maps',
    CLOUDOPS_LOG_LEVEL: 'info',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: info.secretsManagerUrl,
    AWS_ENDPOINT_URL_S3: world.stubs.url,
    AWS_ENDPOINT_URL_EVENTBRIDGE: world.stubs.url,
    AWS_ENDPOINT_URL_SNS: world.stubs.url,
    ...(world.dynamo ? { AWS_ENDPOINT_URL_DYNAMODB: world.dynamo.endpoint } : {}),
  };
  world.close = async () => {
    world.sm.destroy();
    await world.dynamo?.close();
    await world.stubs.close();
    await world.sb.close();
  };
  return world;
}

const managementEnv = (w: World) => ({
  CLOUDOPS_API_URL: w.sb.info.apiUrl,
  CLOUDOPS_ORGANIZATION_ID: w.sb.info.organizationId,
  CLOUDOPS_SERVICE_ID: w.sb.info.serviceIds.join(','),
  CLOUDOPS_KEY_SECRET_ID: w.sb.info.keySecretId,
});
const observabilityEnv = (w: World) => ({
  ...managementEnv(w),
  CLOUDOPS_SERVICE_ID: w.sb.info.serviceId,
  CLOUDOPS_OBSERVABILITY_URL: w.sb.info.observabilityUrl,
  CLOUDOPS_OBSERVABILITY_MODE: 'managed',
  CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: w.sb.info.observabilityTokenSecretId,
});
const scheduled = () => ({
  version: '0',
  id: randomUUID(),
  source: 'aws.events',
  'detail-type': 'Scheduled Event',
  account: '000000000000',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: [],
  detail: {},
});
const exampleFiles = () =>
  directorySource(EXAMPLES)
    .list()
    .then((files) => files.filter((f) => /\.(ya?ml|json)$/.test(f)));

export const SCENARIOS: Record<FunctionName, Scenario> = {
  'rotate-key': {
    event: () => Promise.resolve(undefined),
    baselineEvent: (w) => ({ SecretId: w.sb.info.keySecretId }),
    env: (w) => ({
      CLOUDOPS_API_URL: w.sb.info.apiUrl,
      CLOUDOPS_KEY_LIFETIME: '90d',
      CLOUDOPS_KEY_GRACE_PERIOD: '1d',
    }),
  },
  'key-sentinel': {
    // The seeded key has no expiry: the sentinel reads its record and publishes a notice.
    event: () => Promise.resolve(scheduled()),
    baselineEvent: (w) => ({ secretId: w.sb.info.keySecretId, topicArn: TOPIC_ARN }),
    env: (w) => ({
      CLOUDOPS_API_URL: w.sb.info.apiUrl,
      CLOUDOPS_KEY_SECRET_ID: w.sb.info.keySecretId,
      CLOUDOPS_KEY_EXPIRY_WARN_DAYS: '14',
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: TOPIC_ARN,
      CLOUDOPS_KEY_LIFETIME: '90d',
      CLOUDOPS_KEY_GRACE_PERIOD: '1d',
    }),
  },
  'sync-dashboards': {
    // The schedule (repair mode) over the three example dashboards in "S3": creates them.
    async event(w) {
      const files = new Map<string, string>();
      for (const file of await exampleFiles())
        files.set(PREFIX + file, readFileSync(path.join(EXAMPLES, file), 'utf8'));
      w.stubs.objects.set(BUCKET, files);
      return scheduled();
    },
    baselineEvent: (w) => ({
      secretId: w.sb.info.keySecretId,
      bucket: BUCKET,
      prefix: PREFIX,
      busName: BUS,
    }),
    env: (w) => ({
      ...observabilityEnv(w),
      CLOUDOPS_DASHBOARDS_BUCKET: BUCKET,
      CLOUDOPS_DASHBOARDS_PREFIX: PREFIX,
      CLOUDOPS_DASHBOARDS_SCHEDULE_MODE: 'repair',
      CLOUDOPS_DASHBOARDS_PRUNE: 'false',
      CLOUDOPS_EVENT_BUS_NAME: BUS,
      CLOUDOPS_VAR_WEBHOOK_ID: w.sb.info.webhookId,
    }),
  },
  'provision-alerts': {
    // One SQS record: the `Dashboard Synced` event of the checkout dashboard (one alert).
    async event(w) {
      const { info } = w.sb;
      const connection = connectFromEnv(
        { ...sandboxEnv(info), CLOUDOPS_LOG_LEVEL: 'silent' },
        { managementRateLimit: false, observabilityRateLimit: false },
      );
      try {
        const outcome = await syncDashboards({
          source: directorySource(EXAMPLES),
          backend: connection.clients.backend(info.serviceId),
          mode: 'apply',
          vars: { WEBHOOK_ID: info.webhookId },
        });
        const events = dashboardSyncedEvents(outcome.apply?.results ?? [], new Date());
        const withAlert = events.find((e) => e.detail.alerts.length > 0);
        if (!withAlert) throw new Error('bench: no example dashboard declares an alert');
        w.sb.requestLog.clear();
        return {
          Records: [
            {
              messageId: randomUUID(),
              receiptHandle: 'bench',
              body: JSON.stringify({ version: '0', id: randomUUID(), ...withAlert }),
              attributes: {},
              messageAttributes: {},
              md5OfBody: '',
              eventSource: 'aws:sqs',
              eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:cloudops-alerts',
              awsRegion: 'us-east-1',
            },
          ],
        };
      } finally {
        connection.close();
      }
    },
    baselineEvent: (w) => ({ secretId: w.sb.info.keySecretId, tableName: VERSION_TABLE }),
    env: (w) => ({ ...observabilityEnv(w), CLOUDOPS_ALERTS_VERSION_TABLE: VERSION_TABLE }),
    needsDynamo: true,
  },
  'pipe-watchdog': {
    needsDynamo: true,
    event: () => Promise.resolve(scheduled()),
    baselineEvent: (w) => ({
      secretId: w.sb.info.keySecretId,
      tableName: TABLE,
      topicArn: TOPIC_ARN,
      busName: BUS,
    }),
    env: (w) => ({
      ...managementEnv(w),
      CLOUDOPS_WATCHDOG_TABLE: TABLE,
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: TOPIC_ARN,
      CLOUDOPS_WATCHDOG_EVENT_BUS: BUS,
    }),
  },
};

export interface CallCount {
  /** management / observability API requests */
  api: number;
  /** Secrets Manager requests by the function (the bench's own RotateSecret excluded) */
  secretsManager: number;
  /** S3 / EventBridge / SNS requests (stubs); DynamoDB is not counted */
  otherAws: number;
  detail: string[];
}

export interface RoundResult {
  fn: ChildRun;
  baseline: ChildRun;
  calls: CallCount;
}

async function runChild(
  bundle: string,
  env: Record<string, string>,
  label: string,
  capture: Capture,
  drive: (child: Child) => Promise<Record<string, unknown>>,
): Promise<ChildRun> {
  const child = new Child(bundle, env, label, capture);
  try {
    await child.ready();
    const first = await drive(child);
    const maxRssKiB = await child.done();
    return {
      ok: first.ok === true,
      error: first.ok === true ? undefined : String(first.error),
      importMs: first.importMs as number,
      invokeMs: first.invokeMs as number,
      maxRssKiB,
    };
  } finally {
    child.kill();
  }
}

function countCalls(world: World): CallCount {
  const entries = world.sb.requestLog.entries().filter((e) => e.surface !== 'admin');
  const api = entries.filter((e) => e.surface === 'management' || e.surface === 'observability');
  const sm = entries.filter(
    (e) => e.surface === 'secretsmanager' && e.operation !== 'RotateSecret',
  );
  const detail = [
    ...api.map((e) => `${e.method} ${e.path.replace(/[0-9a-f-]{36}/g, '{id}')}`),
    ...sm.map((e) => `SM ${e.operation}`),
    ...world.stubs.calls,
  ];
  return {
    api: api.length,
    secretsManager: sm.length,
    otherAws: world.stubs.calls.length,
    detail,
  };
}

/** One round for one function: fresh world, function and baseline in the given order. */
export async function coldStartRound(
  runner: string,
  name: FunctionName,
  bundles: { fn: string; baseline: string },
  baselineFirst: boolean,
  capture: Capture,
  secretsInUse: Set<string>,
): Promise<RoundResult> {
  RUNNER = runner;
  const scenario = SCENARIOS[name];
  const world = await startWorld(scenario);
  try {
    const env = { ...world.env, ...scenario.env(world) };
    let calls: CallCount | undefined;
    const runFn = async () => {
      const event = await scenario.event(world);
      world.sb.requestLog.clear();
      world.stubs.calls.length = 0;
      const run = await runChild(bundles.fn, env, name, capture, async (child) => {
        if (name !== 'rotate-key') return child.invoke(event);
        // The real thing: RotateSecret runs the four steps through the child (the first is timed).
        world.rotator = child;
        const first = new Promise<Record<string, unknown>>((resolve) => {
          const invoke = child.invoke.bind(child);
          let seen = false;
          child.invoke = async (e) => {
            const answer = await invoke(e);
            if (!seen) resolve(answer);
            seen = true;
            return answer;
          };
        });
        const rotated = await world.sm
          .send(
            new RotateSecretCommand({
              SecretId: world.sb.info.keySecretId,
              ClientRequestToken: randomUUID(),
              RotateImmediately: true,
            }),
          )
          .then(
            () => undefined,
            (error: unknown) => (error instanceof Error ? error.message : String(error)),
          );
        const answer = await first;
        return rotated ? { ...answer, ok: false, error: `RotateSecret: ${rotated}` } : answer;
      });
      calls = countCalls(world);
      return run;
    };
    const runBaseline = () =>
      runChild(bundles.baseline, env, `${name} baseline`, capture, (child) =>
        child.invoke(scenario.baselineEvent(world)),
      );
    let fn: ChildRun;
    let baseline: ChildRun;
    if (baselineFirst) {
      baseline = await runBaseline();
      fn = await runFn();
    } else {
      fn = await runFn();
      baseline = await runBaseline();
    }
    await collectSecrets(world, secretsInUse);
    capture.add(`${name} emitted (EventBridge/SNS)`, world.stubs.emitted.join('\n'));
    return { fn, baseline, calls: calls! };
  } finally {
    await world.close();
  }
}

/** Every secret value this world's Secrets Manager holds (seeded and created keys, tokens). */
async function collectSecrets(world: World, into: Set<string>): Promise<void> {
  const { info } = world.sb;
  into.add(info.keySecret);
  into.add(info.observabilityToken);
  for (const id of [info.keySecretId, info.observabilityTokenSecretId]) {
    const versions = await world.sm.send(
      new ListSecretVersionIdsCommand({ SecretId: id, IncludeDeprecated: true }),
    );
    for (const v of versions.Versions ?? []) {
      const out = await world.sm
        .send(new GetSecretValueCommand({ SecretId: id, VersionId: v.VersionId }))
        .catch(() => undefined);
      if (!out?.SecretString) continue;
      into.add(out.SecretString);
      const parsed = JSON.parse(out.SecretString) as Record<string, unknown>;
      for (const key of ['keySecret', 'token']) {
        if (typeof parsed[key] === 'string') into.add(parsed[key]);
      }
    }
  }
}
