/**
 * A sandbox whose Secrets Manager endpoint runs the real rotation handler in-process, with a
 * call counter that can crash the rotator before or after any external call.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  RotateSecretCommand,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { createManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import {
  DEFAULT_ROTATION_CONFIG,
  type RotationApi,
  type RotationConfig,
  type RotationDeps,
} from '../../lib/keys';
import { createLogger } from '../../lib/log';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import { startTestSandbox } from '../support/sandbox';
import type { RotationEvent } from '../../sandbox/secrets-manager';
import { createRotationHandler } from '../../functions/rotate-key/handler';
import { authenticates } from '../support/sandbox-clients';
import { admin } from '../support/sandbox-http';
import { sdkClient } from '../support/secrets-manager';

export const DAY = 86_400_000;
export const TEST_CONFIG: RotationConfig = {
  ...DEFAULT_ROTATION_CONFIG,
  lifetimeMs: 30 * DAY,
  gracePeriodMs: DAY,
};

/** Crash plan: throw at external call number `at` (1-based), before or after it ran. */
export interface CrashPlan {
  at: number;
  when: 'before' | 'after';
}

/** Crash at the first call named `on` (e.g. 'api:deleteKey'). */
export interface NamedCrashPlan {
  on: string;
  when: 'before' | 'after';
}

export class CallCounter {
  calls: string[] = [];
  apiCalls = 0;
  plan: CrashPlan | NamedCrashPlan | undefined;

  async guard<T>(name: string, api: boolean, run: () => Promise<T>): Promise<T> {
    this.calls.push(name);
    if (api) this.apiCalls += 1;
    const n = this.calls.length;
    const plan = this.plan;
    const hit =
      plan !== undefined &&
      ('at' in plan ? plan.at === n : plan.on === name && this.calls.indexOf(name) === n - 1);
    const crash = hit ? plan.when : undefined;
    if (crash === 'before') throw new Error(`injected crash before call ${n} (${name})`);
    const crashAfter = () => new Error(`injected crash after call ${n} (${name})`);
    // The call ran (whatever it answered); the process dies before using the answer.
    const result = await run().catch((error: unknown) => {
      throw crash === 'after' ? crashAfter() : error;
    });
    if (crash === 'after') throw crashAfter();
    return result;
  }

  reset(plan?: CrashPlan | NamedCrashPlan): void {
    this.calls = [];
    this.apiCalls = 0;
    this.plan = plan;
  }
}

export interface RotationSandbox {
  sb: Sandbox;
  /** An SDK client for the test itself (never crashed, never counted). */
  sm: SecretsManagerClient;
  secretId: string;
  counter: CallCounter;
  deps: RotationDeps;
  /** Called after every step the handler completes (mid-rotation checks). */
  afterStep: ((event: RotationEvent) => Promise<void>) | undefined;
  /** Invokes the handler as Lambda would. */
  invoke(event: RotationEvent): Promise<void>;
  /** RotateSecret with a fresh token (the emulator runs the four steps through the handler). */
  rotate(token?: string): Promise<string>;
  /** Re-run all four steps with the same token, as Secrets Manager's retries would. */
  retry(token: string): Promise<void>;
  /** The operator's fix for an abandoned rotation: drop AWSPENDING from a non-current version. */
  abandonPending(): Promise<void>;
  /** The same for another secret of this sandbox. */
  abandonPendingOf(secretId: string): Promise<void>;
  read(stage: 'AWSCURRENT' | 'AWSPENDING' | 'AWSPREVIOUS'): Promise<ManagementKeySecret>;
  stages(): Promise<Record<string, string[]>>;
  authenticates(secret: ManagementKeySecret): Promise<boolean>;
  close(): Promise<void>;
}

export const STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;

/**
 * Admin-secret mode's set-up: the sandbox's admin key stored as `admin-key`, and a new developer
 * key stored as `dev-key` (with `roles` in the value unless `withRoles` is false).
 */
export async function adminAndDeveloperSecrets(
  rs: RotationSandbox,
  withRoles = true,
): Promise<{ admin: ManagementKeySecret; dev: ManagementKeySecret & { keyRecordId: string } }> {
  const admin = await rs.read('AWSCURRENT');
  await rs.sm.send(
    new CreateSecretCommand({ Name: 'admin-key', SecretString: JSON.stringify(admin) }),
  );
  const api = createManagementClient({
    baseUrl: rs.sb.info.apiUrl,
    credentials: staticCredentials('admin', admin, managementKeySecret),
    rateLimit: false,
  });
  const made = await api.createKey({ name: 'dev', roles: ['developer'] });
  api.close();
  const dev = {
    organizationId: admin.organizationId,
    keyId: made.keyId!,
    keySecret: made.keySecret!,
    keyRecordId: made.key.id,
    expireAt: null,
    ...(withRoles ? { roles: ['developer' as const] } : {}),
  };
  await rs.sm.send(new CreateSecretCommand({ Name: 'dev-key', SecretString: JSON.stringify(dev) }));
  return { admin, dev };
}

/**
 * A developer key (current profile) made with the secret's key and aged: made `ageDays` ago and
 * never used since (the sandbox's admin route). Returns its record id.
 */
export async function idleKey(rs: RotationSandbox, name: string, ageDays: number): Promise<string> {
  const current = await rs.read('AWSCURRENT');
  const api = createManagementClient({
    baseUrl: rs.sb.info.apiUrl,
    credentials: staticCredentials('current', current, managementKeySecret),
    rateLimit: false,
  });
  const made = await api.createKey({
    name,
    assignedRoleIds: [rs.sb.info.roleIds!.Developer],
    expireAt: new Date(rs.sb.clock.now() + 365 * DAY).toISOString(),
  });
  api.close();
  const aged = await admin(rs.sb, 'PATCH', `/keys/${made.key.id}`, {
    createdAt: new Date(rs.sb.clock.now() - ageDays * DAY).toISOString(),
    usedAt: null,
  });
  if (aged.status !== 200) throw new Error(`ageing key ${made.key.id}: ${aged.text}`);
  return made.key.id;
}

export async function startRotationSandbox(
  config: RotationConfig = TEST_CONFIG,
  profile: 'current' | 'spec' = 'spec',
  /** `async`: RotateSecret answers before the steps run, as AWS does. */
  rotationTiming: 'sync' | 'async' = 'sync',
): Promise<RotationSandbox> {
  let invoke: (event: RotationEvent) => Promise<void> = () =>
    Promise.reject(new Error('not ready'));
  const sb = await startTestSandbox({
    profile,
    rateLimits: { management: { limit: 10_000, windowMs: 1_000 } },
    invokeRotation: (_arn, event) => invoke(event),
    rotationTiming,
  });
  const sm = sdkClient(sb.info.secretsManagerUrl);
  const rotatorSm = sdkClient(sb.info.secretsManagerUrl);
  const counter = new CallCounter();
  const logger = createLogger({ level: 'debug', fields: { test: 'rotation' } });

  const secrets = new Proxy(rotatorSm, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      return (command: { constructor: { name: string } }) =>
        counter.guard(`sm:${command.constructor.name.replace(/Command$/, '')}`, false, () =>
          target.send(command as never),
        );
    },
  });

  const connect: RotationDeps['connect'] = (credentials) => {
    const client = createManagementClient({
      baseUrl: sb.info.apiUrl,
      credentials,
      rateLimit: false,
      logger,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    const g =
      <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) =>
      (...args: A) =>
        counter.guard(`api:${name}`, true, () => fn(...args));
    const api: RotationApi = {
      createKey: g('createKey', (...a: Parameters<typeof client.createKey>) =>
        client.createKey(...a),
      ),
      updateKey: g('updateKey', (...a: Parameters<typeof client.updateKey>) =>
        client.updateKey(...a),
      ),
      deleteKey: g('deleteKey', (...a: Parameters<typeof client.deleteKey>) =>
        client.deleteKey(...a),
      ),
      listKeys: g('listKeys', (...a: Parameters<typeof client.listKeys>) => client.listKeys(...a)),
      listPipes: g('listPipes', (...a: Parameters<typeof client.listPipes>) =>
        client.listPipes(...a),
      ),
      close: () => client.close(),
    };
    return api;
  };

  const deps: RotationDeps = { secrets, connect, now: () => sb.clock.now(), config, logger };
  const handler = createRotationHandler(deps);
  const secretId = sb.info.keySecretId;

  const read = async (stage: string) => {
    const out = await sm.send(
      new GetSecretValueCommand({ SecretId: secretId, VersionStage: stage }),
    );
    return managementKeySecret.parse(JSON.parse(out.SecretString ?? 'null'));
  };
  const stagesOf = async (id: string) =>
    (await sm.send(new DescribeSecretCommand({ SecretId: id }))).VersionIdsToStages ?? {};
  const stages = () => stagesOf(secretId);
  const abandonPendingOf = async (id: string) => {
    const all = await stagesOf(id);
    const stuck = Object.keys(all).find(
      (v) => all[v]?.includes('AWSPENDING') && !all[v]?.includes('AWSCURRENT'),
    );
    if (stuck) {
      await sm.send(
        new UpdateSecretVersionStageCommand({
          SecretId: id,
          VersionStage: 'AWSPENDING',
          RemoveFromVersionId: stuck,
        }),
      );
    }
  };

  const rs: RotationSandbox = {
    sb,
    sm,
    secretId,
    counter,
    deps,
    afterStep: undefined,
    invoke: (event) => invoke(event),
    async rotate(token = randomUUID()) {
      await sm.send(
        new RotateSecretCommand({
          SecretId: secretId,
          ClientRequestToken: token,
          RotateImmediately: true,
        }),
      );
      return token;
    },
    async retry(token) {
      for (const Step of STEPS)
        await invoke({ SecretId: secretId, ClientRequestToken: token, Step });
    },
    abandonPending: () => abandonPendingOf(secretId),
    abandonPendingOf,
    read,
    stages,
    authenticates: (secret) => authenticates(sb.info.apiUrl, secret),
    async close() {
      sm.destroy();
      rotatorSm.destroy();
      await sb.close();
    },
  };
  invoke = async (event) => {
    await handler(event, {} as Context);
    await rs.afterStep?.(event);
  };
  return rs;
}
