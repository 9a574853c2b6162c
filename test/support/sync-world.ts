/**
 * The sync-dashboards function as the stack deploys it, over real parts: the sandbox over HTTP
 * (`current` profile) with its Secrets Manager, S3 and EventBridge as a loopback server
 * (bench/aws-stubs.ts: ListObjectsV2 pages with ETags, GetObject, PutObject), provision-alerts'
 * version table in dynalite, the manifest and prune on. Closed after each test.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { startAwsStubs, type AwsStubs } from '../../bench/aws-stubs';
import type { FakeClock } from '../../bench/fake-clock';
import { sandboxEnv } from '../../cli/connect';
import { createHandler } from '../../functions/sync-dashboards/handler';
import { createVersionTable } from '../../lib/alerts/versions-dynamo';
import { DASHBOARD_SYNC_CONTINUED } from '../../lib/dashboards/continuation';
import type { SyncFunctionSummary } from '../../lib/dashboards/function-run';
import { startSandbox, type Sandbox } from '../../sandbox/index';
import { closeAfterEach } from './close-after-each';
import { startLocalDynamo, type LocalDynamo } from './local-dynamo';

export const BUCKET = 'cloudops-config';
export const PREFIX = 'dashboards/';
export const MANIFEST = '.cloudops/sync-manifest.json';
const TABLE = 'cloudops-alert-versions';

export type SyncHandler = (event: unknown) => Promise<SyncFunctionSummary>;

export interface SyncWorld {
  sb: Sandbox;
  stubs: AwsStubs;
  dynamo: LocalDynamo;
  /** The function's Secrets Manager client (the sandbox's endpoint, access key `test`). */
  sm: SecretsManagerClient;
  /** The bucket's objects: key -> text. */
  files: Map<string, string>;
  /** A handler as the stack wires it (env as the stack sets it, the manifest key included). */
  handler(
    env?: Record<string, string | undefined>,
    extra?: Partial<Parameters<typeof createHandler>[0]>,
  ): SyncHandler;
  close(): Promise<void>;
}

export interface SyncWorldOptions {
  /** The sandbox's and the handler's clock (deadline tests). */
  readonly fake?: FakeClock;
  /** Requests per 10 s of the key; unset: no limit anyone reaches. */
  readonly limit?: number;
  /** Keys per ListObjectsV2 page. @default 1000 */
  readonly s3PageSize?: number;
}

const open = closeAfterEach<SyncWorld>();

export async function syncWorld(options: SyncWorldOptions = {}): Promise<SyncWorld> {
  const limit = { limit: options.limit ?? 100_000, windowMs: options.limit ? 10_000 : 1_000 };
  const sb = await startSandbox({
    profile: 'current',
    port: 0,
    rateLimits: { management: limit, observability: limit },
    ...(options.fake ? { now: options.fake.epoch } : {}),
  });
  const stubs = await startAwsStubs(options.s3PageSize ? { s3PageSize: options.s3PageSize } : {});
  const dynamo = await startLocalDynamo();
  await createVersionTable(dynamo.client, TABLE);
  const files = new Map<string, string>();
  stubs.objects.set(BUCKET, files);
  const aws = {
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
  const clients = {
    s3: new S3Client({ ...aws, endpoint: stubs.url, forcePathStyle: true }),
    eventBridge: new EventBridgeClient({ ...aws, endpoint: stubs.url }),
    secretsManager: new SecretsManagerClient({ ...aws, endpoint: sb.info.secretsManagerUrl }),
  };
  const w: SyncWorld = {
    sb,
    stubs,
    dynamo,
    sm: clients.secretsManager,
    files,
    handler(env = {}, extra = {}) {
      const rate = `${limit.limit}/${limit.windowMs / 1000}s`;
      const h = createHandler({
        env: {
          ...sandboxEnv(sb.info),
          CLOUDOPS_MANAGEMENT_RATE_LIMIT: rate,
          CLOUDOPS_OBSERVABILITY_RATE_LIMIT: rate,
          CLOUDOPS_LOG_LEVEL: 'silent',
          CLOUDOPS_DASHBOARDS_BUCKET: BUCKET,
          CLOUDOPS_DASHBOARDS_PREFIX: PREFIX,
          CLOUDOPS_EVENT_BUS_NAME: 'cloudops-bus',
          CLOUDOPS_ALERTS_VERSION_TABLE: TABLE,
          CLOUDOPS_DASHBOARDS_MANIFEST_KEY: MANIFEST,
          CLOUDOPS_DASHBOARDS_PRUNE: 'true',
          ...env,
        },
        ...clients,
        dynamo: dynamo.client,
        ...extra,
      });
      return (event) => h(event, {} as Context);
    },
    close: async () => {
      for (const client of Object.values(clients)) client.destroy();
      await dynamo.close();
      await stubs.close();
      await sb.close();
    },
  };
  open.push(w);
  return w;
}

/** The management and observability requests the sandbox served. */
export const apiRequests = (w: SyncWorld) =>
  w.sb.requestLog
    .entries()
    .filter((e) => e.surface === 'management' || e.surface === 'observability');

/** Forget what the services saw so far (requests, AWS calls). */
export const forget = (w: SyncWorld) => {
  w.sb.requestLog.clear();
  w.stubs.calls.length = 0;
};

/** The continuation events the runs put on the bus, as the rule delivers them. */
export const continuations = (w: SyncWorld) =>
  w.stubs.emitted
    .flatMap((b) => (JSON.parse(b) as { Entries?: Record<string, string>[] }).Entries ?? [])
    .filter((e) => e.DetailType === DASHBOARD_SYNC_CONTINUED)
    .map((e) => ({
      version: '0',
      id: `c-${e.Detail}`,
      source: e.Source,
      'detail-type': e.DetailType,
      detail: JSON.parse(e.Detail) as unknown,
    }));
