/**
 * Key rotation under seeded faults: three scheduled rotations through the sandbox's
 * RotateSecret, which runs the real handler in-process. Faults hit the management API and the
 * handler's own Secrets Manager calls. A failed rotation is retried with the same token, all
 * four steps, as Secrets Manager does. The end state must be the fault-free one: one working
 * AWSCURRENT key, no key without expiry, the same number of keys in the same states.
 */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  RotateSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { createLogger } from '../../lib/log';
import { createManagementClient } from '../../lib/api';
import type { RotationDeps } from '../../lib/keys';
import { managementKeySecret } from '../../lib/schemas';
import { createRotationHandler } from '../../functions/rotate-key/handler';
import type { RotationEvent } from '../../sandbox/secrets-manager';
import type { Sandbox } from '../../sandbox/index';
import { DAY, STEPS, TEST_CONFIG } from '../integration/rotation-harness';
import { authenticates } from '../support/sandbox-clients';
// Deterministic tokens (a seed fixes the whole run), UUID-shaped as Secrets Manager's are.
import { sdkClient, token } from '../support/secrets-manager';
import { closeAfterEach } from '../support/close-after-each';
import {
  describeTrace,
  faultSandbox,
  faultTrace,
  RATES,
  seededRuns,
  RETRY,
  spec,
  TIMEOUT_MS,
} from './helpers';

/** The management API and the handler's Secrets Manager calls; not RotateSecret (the trigger). */
const ROUTES =
  '(GET|POST|PATCH|PUT|DELETE) /v1/.*|POST /secretsmanager\\.(GetSecretValue|DescribeSecret|PutSecretValue|UpdateSecretVersionStage)';

const open = closeAfterEach();

interface Outcome {
  keys: string[];
  retries: number;
}

async function scenario(rate: number | undefined, seed: number): Promise<Outcome> {
  let invoke: (event: RotationEvent) => Promise<void> = () =>
    Promise.reject(new Error('not ready'));
  const sb: Sandbox = await faultSandbox({ invokeRotation: (_arn, event) => invoke(event) });
  // The rotator's Secrets Manager client as deployed (SDK default retries), short timeouts.
  const rotatorSm = new SecretsManagerClient({
    endpoint: sb.info.secretsManagerUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const sm = sdkClient(sb.info.secretsManagerUrl);
  open.push({
    close: async () => {
      rotatorSm.destroy();
      sm.destroy();
      await sb.close();
    },
  });
  const deps: RotationDeps = {
    secrets: rotatorSm,
    connect: (credentials) =>
      createManagementClient({
        baseUrl: sb.info.apiUrl,
        credentials,
        rateLimit: false,
        // Two attempts (not ten): faults get through to the handler and to Secrets Manager's retries.
        retry: { ...RETRY, maxAttempts: 2 },
        timeoutMs: TIMEOUT_MS,
      }),
    now: () => sb.clock.now(),
    config: TEST_CONFIG,
    // Logged at debug so the leak scan reads every line the rotator would print under faults.
    logger: createLogger({ level: 'debug', fields: { suite: 'rotation-faults' } }),
  };
  const handler = createRotationHandler(deps);
  invoke = async (event) => {
    await handler(event, {} as Context);
  };
  const secretId = sb.info.keySecretId;
  if (rate !== undefined) sb.faults.set(spec(seed, rate, ROUTES));

  let retries = 0;
  for (let round = 1; round <= 3; round += 1) {
    sb.clock.advance(TEST_CONFIG.gracePeriodMs + DAY);
    const t = token(round);
    let failure = await sm
      .send(
        new RotateSecretCommand({
          SecretId: secretId,
          ClientRequestToken: t,
          RotateImmediately: true,
        }),
      )
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    // Secrets Manager retries a failed rotation Lambda with the same token.
    for (let attempt = 1; failure !== undefined; attempt += 1) {
      if (attempt > 20)
        throw new Error(`rotation ${round} never completed (seed ${seed}, rate ${rate})`);
      retries += 1;
      failure = undefined;
      for (const Step of STEPS) {
        failure = await invoke({ SecretId: secretId, ClientRequestToken: t, Step }).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (failure !== undefined) break;
      }
    }
  }
  sb.faults.clear();
  if (rate !== undefined) console.log(describeTrace(`rotation rate ${rate}`, faultTrace(sb)));

  // One working AWSCURRENT, nothing stuck in AWSPENDING.
  const stages =
    (await sm.send(new DescribeSecretCommand({ SecretId: secretId }))).VersionIdsToStages ?? {};
  const current = Object.keys(stages).filter((id) => stages[id]?.includes('AWSCURRENT'));
  expect(current).toEqual([token(3)]);
  expect(
    Object.keys(stages).filter(
      (id) => stages[id]?.includes('AWSPENDING') && !stages[id]?.includes('AWSCURRENT'),
    ),
  ).toEqual([]);
  const value = managementKeySecret.parse(
    JSON.parse(
      (await sm.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: 'AWSCURRENT' })))
        .SecretString ?? 'null',
    ),
  );
  expect(await authenticates(sb.info.apiUrl, value)).toBe(true);

  const keys = sb.store.state.keys;
  expect(keys.filter((k) => k.expireAt === null)).toEqual([]);
  const now = sb.clock.now();
  return {
    // Names carry the sandbox clock (the same in both runs) and the owning secret's ARN hash
    // (each run's secret has its own ARN); states and expiry as stored.
    keys: keys
      .map((k) =>
        JSON.stringify({
          name: k.name.replace(/^(cloudops-rotated-)[0-9a-f]{10}-/, '$1<owner>-'),
          state: k.state,
          expireAt: k.expireAt,
          usable: k.state === 'enabled' && Date.parse(k.expireAt!) > now,
          current: k.keySuffix === value.keyId.slice(-4),
        }),
      )
      .sort(),
    retries,
  };
}

describe('key rotation under seeded faults', () => {
  const { seed, baseline } = seededRuns(scenario);

  it('fault-free: three rotations, each first time', async () => {
    const c = await baseline();
    expect(c.retries).toBe(0);
    expect(c.keys.filter((k) => k.includes('"usable":true')).length).toBeLessThanOrEqual(2);
  });

  for (const rate of RATES) {
    it(`rate ${rate * 100} %, seed ${seed}: one working AWSCURRENT key, same keys as without faults`, async () => {
      const c = await baseline();
      const faulty = await scenario(rate, seed);
      console.log(`rotation rate ${rate}: ${faulty.retries} same-token retries for 3 rotations`);
      expect(faulty.keys).toEqual(c.keys);
    });
  }
});
