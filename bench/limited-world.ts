/**
 * What the sync's figures run against: the sandbox (`current` profile) enforcing a management
 * key's real limit on a fake clock (the limit without the waiting), S3 and EventBridge stubs, and
 * provision-alerts' version table in dynalite.
 */
import { createVersionTable } from '../lib/alerts/versions-dynamo';
import { MANAGEMENT_RATE_LIMIT } from '../lib/api/rate-limiter';
import { startSandbox, type Sandbox } from '../sandbox/index';
import { startLocalDynamo, type LocalDynamo } from '../test/support/local-dynamo';
import { startAwsStubs, type AwsStubs } from './aws-stubs';
import { fakeClock, type FakeClock } from './fake-clock';

export interface LimitedWorld {
  /** The clock the sandbox and the handlers share. */
  fake: FakeClock;
  sb: Sandbox;
  stubs: AwsStubs;
  dynamo: LocalDynamo;
  /** What Lambda gives a function's process: region, credentials, this world's AWS endpoints. */
  awsEnv: Record<string, string>;
  close: () => Promise<void>;
}

/**
 * The sandbox (`current` profile) on `fake`, enforcing a management key's real limit on the
 * management API (and on the observability API too when `observability` is set).
 */
export function startLimitedSandbox(
  fake: FakeClock,
  options: { observability?: boolean } = {},
): Promise<Sandbox> {
  const limit = MANAGEMENT_RATE_LIMIT;
  return startSandbox({
    profile: 'current',
    port: 0,
    rateLimits: { management: limit, ...(options.observability ? { observability: limit } : {}) },
    now: fake.epoch,
  });
}

export async function startLimitedWorld(versionTable: string): Promise<LimitedWorld> {
  const fake = fakeClock();
  const sb = await startLimitedSandbox(fake, { observability: true });
  const stubs = await startAwsStubs();
  const dynamo = await startLocalDynamo();
  await createVersionTable(dynamo.client, versionTable);
  return {
    fake,
    sb,
    stubs,
    dynamo,
    awsEnv: {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
      AWS_ENDPOINT_URL_S3: stubs.url,
      AWS_ENDPOINT_URL_EVENTBRIDGE: stubs.url,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    close: async () => {
      await dynamo.close();
      await stubs.close();
      await sb.close();
    },
  };
}
