/**
 * Cold start, peak memory, and rotation API calls: each sample is a fresh `node` process of the
 * deployed runtime (bench/node-runtime.ts; bench/child/invoke.mjs) that imports a deployed bundle
 * and runs one real event against a fresh sandbox (+ dynalite for DynamoDB, + bench/aws-stubs.ts
 * for S3/EventBridge/SNS, + bench/sqs-stub.ts), with the function's environment exactly as the
 * synthesized template sets it (deployed resources replaced by the world's), nothing inherited.
 * Function and baseline alternate within a round, against the same world.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { build } from 'esbuild';
import { randomUUID } from 'node:crypto';
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
import { exampleFolder } from '../test/support/dashboards-sandbox';
import { startLocalDynamo, type LocalDynamo } from '../test/support/local-dynamo';
import { startSandbox, type Sandbox } from '../sandbox/index';
import type { RotationEvent } from '../sandbox/secrets-manager';
import type { WatchdogBatchMessage } from '../lib/pipes/enqueue';
import { startAwsStubs, type AwsStubs } from './aws-stubs';
import type { CdkBundle, FunctionName } from './bundles';
import type { Capture } from './capture';
import { startSqsStub, type SqsStub } from './sqs-stub';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUCKET = 'cloudops-bench-config';
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
  sqs: SqsStub;
  dynamo?: LocalDynamo;
  sm: SecretsManagerClient;
  env: Record<string, string>;
  /** Where the sandbox's RotateSecret sends its steps (the child under test). */
  rotator?: Child;
  close(): Promise<void>;
}

export interface Scenario {
  /** The real event (rotate-key: the four steps come from RotateSecret instead). */
  event(world: World, env: Record<string, string>): Promise<unknown>;
  /** The ids the baseline needs, as its event. */
  baselineEvent(world: World, env: Record<string, string>): unknown;
  /** What the bench adds to the stack's environment (the example files' variables). */
  extraEnv?(world: World): Record<string, string>;
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

/** The runner script and the `node` binary every child runs with. */
export interface ChildSetup {
  runner: string;
  node: string;
}

class Child {
  private readonly proc: ChildProcess;
  private readonly waiting: ((message: Record<string, unknown>) => void)[] = [];
  private readonly exited: Promise<number | null>;

  constructor(
    setup: ChildSetup,
    bundle: string,
    env: Record<string, string>,
    label: string,
    capture: Capture,
  ) {
    this.proc = spawn(setup.node, [setup.runner, bundle], {
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
  world.sqs = await startSqsStub();
  world.dynamo = scenario.needsDynamo ? await startLocalDynamo(TABLE) : undefined;
  if (world.dynamo) await createVersionTable(world.dynamo.client, VERSION_TABLE);
  world.sm = new SecretsManagerClient({
    endpoint: world.sb.info.secretsManagerUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
  });
  const { info } = world.sb;
  world.env = {
    // What Lambda gives every function, pointed at this world's endpoints.
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: info.secretsManagerUrl,
    AWS_ENDPOINT_URL_S3: world.stubs.url,
    AWS_ENDPOINT_URL_EVENTBRIDGE: world.stubs.url,
    AWS_ENDPOINT_URL_SNS: world.stubs.url,
    AWS_ENDPOINT_URL_SQS: world.sqs.endpoint,
    ...(world.dynamo ? { AWS_ENDPOINT_URL_DYNAMODB: world.dynamo.endpoint } : {}),
  };
  world.close = async () => {
    world.sm.destroy();
    await world.dynamo?.close();
    await world.sqs.close();
    await world.stubs.close();
    await world.sb.close();
  };
  return world;
}

/** This world's value for each variable the stack sets from a deployed resource or setting. */
function worldValues(w: World): Record<string, string> {
  const { info } = w.sb;
  return {
    CLOUDOPS_API_URL: info.apiUrl,
    CLOUDOPS_OBSERVABILITY_URL: info.observabilityUrl,
    CLOUDOPS_ORGANIZATION_ID: info.organizationId,
    CLOUDOPS_SERVICE_ID: info.serviceIds.join(','),
    CLOUDOPS_KEY_SECRET_ID: info.keySecretId,
    CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: info.observabilityTokenSecretId,
    CLOUDOPS_KEY_SENTINEL_SECRET_IDS: info.keySecretId,
    CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: info.keySecretId,
    CLOUDOPS_DASHBOARDS_BUCKET: BUCKET,
    CLOUDOPS_EVENT_BUS_NAME: BUS,
    CLOUDOPS_ALERTS_VERSION_TABLE: VERSION_TABLE,
    CLOUDOPS_WATCHDOG_TABLE: TABLE,
    CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: TOPIC_ARN,
    CLOUDOPS_WATCHDOG_EVENT_BUS: BUS,
    CLOUDOPS_WATCHDOG_QUEUE_URL: w.sqs.queueUrl,
  };
}

/**
 * The function's environment as the synthesized template sets it: literal values as they are
 * (NODE_OPTIONS included, if the stack sets it), deployed resources and connection settings
 * replaced by this world's. A variable the bench cannot give a local value fails the run.
 */
function stackEnv(
  name: FunctionName,
  template: Record<string, unknown>,
  w: World,
): Record<string, string> {
  const local = worldValues(w);
  return Object.fromEntries(
    Object.entries(template).map(([key, value]) => {
      const v = local[key] ?? value;
      if (typeof v !== 'string')
        throw new Error(
          `bench: ${name} gets ${key} from a deployed resource; give it a local value in worldValues()`,
        );
      return [key, v];
    }),
  );
}

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
const batchMessage = (w: World): WatchdogBatchMessage => ({
  runId: randomUUID(),
  organizationId: w.sb.info.organizationId,
  serviceIds: w.sb.info.serviceIds,
  scheduledAt: Date.now(),
});
/**
 * The example folder as the bench's sandbox (the spec snapshot) and the deployed sync take it:
 * dashboard files only, the alert on the seeded webhook by id. Made once per bench process.
 */
let specExamples: Promise<string> | undefined;
const examplesDir = () => (specExamples ??= exampleFolder('spec'));

export const SCENARIOS: Record<FunctionName, Scenario> = {
  'rotate-key': {
    event: () => Promise.resolve(undefined),
    baselineEvent: (w) => ({ SecretId: w.sb.info.keySecretId }),
  },
  'key-sentinel': {
    // The daily audit: its key lists the keys and the activities; the seeded admin key never
    // expires, so its findings are kept in the watch table and published.
    needsDynamo: true,
    event: () => Promise.resolve(scheduled()),
    baselineEvent: (w) => ({
      secretId: w.sb.info.keySecretId,
      tableName: TABLE,
      topicArn: TOPIC_ARN,
    }),
  },
  'sync-dashboards': {
    // The schedule (the stack's mode) over the three example dashboards in "S3": creates them.
    needsDynamo: true,
    async event(w, env) {
      const files = new Map<string, string>();
      const examples = directorySource(await examplesDir());
      for (const file of await examples.list())
        if (/\.(ya?ml|json)$/.test(file))
          files.set(env.CLOUDOPS_DASHBOARDS_PREFIX + file, await examples.read(file));
      w.stubs.objects.set(BUCKET, files);
      return scheduled();
    },
    baselineEvent: (w, env) => ({
      secretId: w.sb.info.keySecretId,
      bucket: BUCKET,
      prefix: env.CLOUDOPS_DASHBOARDS_PREFIX,
      tableName: VERSION_TABLE,
      busName: BUS,
    }),
    // The example files name their webhook as ${WEBHOOK_ID}.
    extraEnv: (w) => ({ CLOUDOPS_VAR_WEBHOOK_ID: w.sb.info.webhookId }),
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
          source: directorySource(await examplesDir()),
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
    needsDynamo: true,
  },
  'pipe-watchdog': {
    // As deployed (with its queue): the schedule only enqueues the services for the consumer.
    event: () => Promise.resolve(scheduled()),
    baselineEvent: (w) => ({
      queueUrl: w.sqs.queueUrl,
      body: JSON.stringify(batchMessage(w)),
    }),
  },
  'pipe-watchdog-consumer': {
    // One queued batch of every service; the seeded failed pipes make it notify.
    needsDynamo: true,
    event: (w) =>
      Promise.resolve({
        Records: [
          {
            messageId: randomUUID(),
            receiptHandle: 'bench',
            body: JSON.stringify(batchMessage(w)),
            attributes: {},
            messageAttributes: {},
            md5OfBody: '',
            eventSource: 'aws:sqs',
            eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:pipe-watchdog',
            awsRegion: 'us-east-1',
          },
        ],
      }),
    baselineEvent: (w) => ({
      secretId: w.sb.info.keySecretId,
      tableName: TABLE,
      topicArn: TOPIC_ARN,
      busName: BUS,
      queueUrl: w.sqs.queueUrl,
      notReached: [],
    }),
  },
};

export interface CallCount {
  /** management / observability API requests */
  api: number;
  /** Secrets Manager requests by the function (the bench's own RotateSecret excluded) */
  secretsManager: number;
  /** S3 / EventBridge / SNS / SQS requests (stubs); DynamoDB is not counted */
  otherAws: number;
  detail: string[];
}

export interface RoundResult {
  fn: ChildRun;
  baseline: ChildRun;
  calls: CallCount;
}

async function runChild(
  setup: ChildSetup,
  bundle: string,
  env: Record<string, string>,
  label: string,
  capture: Capture,
  drive: (child: Child) => Promise<Record<string, unknown>>,
): Promise<ChildRun> {
  const child = new Child(setup, bundle, env, label, capture);
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

/** What the function called since the log was cleared (`sqsBefore`: the queue's count then). */
function countCalls(world: World, sqsBefore: number): CallCount {
  const sqsSends = world.sqs.sendCalls - sqsBefore;
  const entries = world.sb.requestLog.entries().filter((e) => e.surface !== 'admin');
  const api = entries.filter((e) => e.surface === 'management' || e.surface === 'observability');
  const sm = entries.filter(
    (e) => e.surface === 'secretsmanager' && e.operation !== 'RotateSecret',
  );
  const detail = [
    ...api.map((e) => `${e.method} ${e.path.replace(/[0-9a-f-]{36}/g, '{id}')}`),
    ...sm.map((e) => `SM ${e.operation}`),
    ...world.stubs.calls,
    ...Array<string>(sqsSends).fill('SQS send'),
  ];
  return {
    api: api.length,
    secretsManager: sm.length,
    otherAws: world.stubs.calls.length + sqsSends,
    detail,
  };
}

/** One round for one function: fresh world, function and baseline in the given order. */
export async function coldStartRound(
  setup: ChildSetup,
  bundle: CdkBundle,
  baselineFile: string,
  baselineFirst: boolean,
  capture: Capture,
  secretsInUse: Set<string>,
): Promise<RoundResult> {
  const name = bundle.function;
  const scenario = SCENARIOS[name];
  const world = await startWorld(scenario);
  try {
    const env = {
      ...world.env,
      ...stackEnv(name, bundle.environment, world),
      ...scenario.extraEnv?.(world),
    };
    let calls: CallCount | undefined;
    const runFn = async () => {
      const event = await scenario.event(world, env);
      world.sb.requestLog.clear();
      world.stubs.calls.length = 0;
      const sqsBefore = world.sqs.sendCalls;
      const run = await runChild(setup, bundle.file, env, name, capture, async (child) => {
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
      calls = countCalls(world, sqsBefore);
      return run;
    };
    const runBaseline = () =>
      runChild(setup, baselineFile, env, `${name} baseline`, capture, (child) =>
        child.invoke(scenario.baselineEvent(world, env)),
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
    capture.add(
      `${name} enqueued (SQS)`,
      world.sqs
        .receive(Number.MAX_SAFE_INTEGER)
        .map((r) => r.body)
        .join('\n'),
    );
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
