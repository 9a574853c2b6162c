/**
 * Issue 16 §1–3 over real HTTP: rotation never locks anyone out. Key ownership is scoped to
 * the secret's deployment (its ARN), the previous key is cut only after AWSCURRENT moved, and
 * a key that fails its test is removed (the sentinel's reading of the enforced expiry:
 * key-sentinel.test.ts).
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  RotateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it } from 'vitest';
import { createManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import type { RotationConfig } from '../../lib/keys';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import type { KeyRow } from '../../sandbox/index';
import {
  adminAndDeveloperSecrets,
  DAY,
  startRotationSandbox,
  TEST_CONFIG,
  type RotationSandbox,
} from './rotation-harness';

const LAMBDA = 'arn:aws:lambda:us-east-1:000000000000:function:cloudops-rotate-key';
let open: RotationSandbox[] = [];
afterEach(async () => {
  await Promise.all(open.map((rs) => rs.close()));
  open = [];
});
async function sandbox(): Promise<RotationSandbox> {
  const rs = await startRotationSandbox();
  open.push(rs);
  return rs;
}

const recordOf = (rs: RotationSandbox, key: ManagementKeySecret): KeyRow =>
  rs.sb.store.state.keys.find((k) => k.keySuffix === key.keyId.slice(-4))!;

async function readSecret(rs: RotationSandbox, secretId: string): Promise<ManagementKeySecret> {
  const out = await rs.sm.send(new GetSecretValueCommand({ SecretId: secretId }));
  return managementKeySecret.parse(JSON.parse(out.SecretString!));
}

/** A second admin key of the same organization, stored under `name` (another deployment's secret). */
async function adminSecretNamed(rs: RotationSandbox, name: string): Promise<ManagementKeySecret> {
  const admin = await rs.read('AWSCURRENT');
  const api = createManagementClient({
    baseUrl: rs.sb.info.apiUrl,
    credentials: staticCredentials('admin', admin, managementKeySecret),
    rateLimit: false,
  });
  const made = await api.createKey({ name: `${name}-seed`, roles: ['admin'] });
  api.close();
  const value = {
    organizationId: admin.organizationId,
    keyId: made.keyId!,
    keySecret: made.keySecret!,
    keyRecordId: made.key.id,
    roles: ['admin'],
  };
  await rs.sm.send(new CreateSecretCommand({ Name: name, SecretString: JSON.stringify(value) }));
  return managementKeySecret.parse(value);
}

const rotate = (rs: RotationSandbox, secretId: string) =>
  rs.sm.send(
    new RotateSecretCommand({
      SecretId: secretId,
      RotationLambdaARN: LAMBDA,
      RotateImmediately: true,
    }),
  );

describe('two deployments with the same secret name (16 §1)', () => {
  it("never disables, cuts or deletes the other deployment's keys", async () => {
    const rs = await sandbox();
    // Deployment A rotates its secret twice: a current key and a previous one in its grace.
    await adminSecretNamed(rs, 'cloudops/api-key');
    await rotate(rs, 'cloudops/api-key');
    await rotate(rs, 'cloudops/api-key');
    const aCurrent = await readSecret(rs, 'cloudops/api-key');
    const aKeys = rs.sb.store.state.keys
      .filter((k) => k.name.startsWith(TEST_CONFIG.namePrefix))
      .map((k) => ({ ...k }));
    expect(aKeys.length).toBeGreaterThanOrEqual(2);

    // Deployment B (another account, or A destroyed and redeployed) uses the same name: the
    // secret is a different one (new ARN) holding its own key.
    await rs.sm.send(
      new DeleteSecretCommand({ SecretId: 'cloudops/api-key', ForceDeleteWithoutRecovery: true }),
    );
    await adminSecretNamed(rs, 'cloudops/api-key');
    for (let i = 0; i < 3; i++) {
      rs.sb.clock.advance(TEST_CONFIG.gracePeriodMs / 2);
      await rotate(rs, 'cloudops/api-key');
    }

    for (const before of aKeys) {
      const after = rs.sb.store.state.keys.find((k) => k.id === before.id);
      expect(after, `${before.name} still exists`).toBeDefined();
      expect(after!.state, `${before.name} state`).toBe(before.state);
      expect(after!.expireAt, `${before.name} expiry`).toBe(before.expireAt);
    }
    expect(await rs.authenticates(aCurrent)).toBe(true);
  });
});

describe('finishSecret moves AWSCURRENT before the previous key is cut (16 §2)', () => {
  it('a label move that keeps failing leaves the key every consumer reads at its full lifetime', async () => {
    const rs = await sandbox();
    await rs.rotate();
    const current = await rs.read('AWSCURRENT');
    const expireBefore = recordOf(rs, current).expireAt;
    rs.counter.reset({ on: 'sm:UpdateSecretVersionStage', when: 'before' });
    const token = '22222222-2222-4222-8222-222222222222';
    await expect(rs.rotate(token)).rejects.toThrow(/injected crash/);
    rs.counter.reset({ on: 'sm:UpdateSecretVersionStage', when: 'before' });
    await expect(rs.retry(token)).rejects.toThrow(/injected crash/);

    expect((await rs.read('AWSCURRENT')).keyId).toBe(current.keyId);
    expect(recordOf(rs, current).expireAt).toBe(expireBefore);
    rs.sb.clock.advance(TEST_CONFIG.gracePeriodMs + DAY);
    expect(await rs.authenticates(current)).toBe(true);
  });

  it('a crash right after the move: the retry (token already AWSCURRENT) still cuts the previous key', async () => {
    const rs = await sandbox();
    await rs.rotate();
    const previous = await rs.read('AWSCURRENT');
    const lifetimeEnd = recordOf(rs, previous).expireAt;
    // The second UpdateSecretVersionStage call drops AWSPENDING; crash after the first (the move).
    rs.counter.reset({ on: 'sm:UpdateSecretVersionStage', when: 'after' });
    const token = '33333333-3333-4333-8333-333333333333';
    await expect(rs.rotate(token)).rejects.toThrow(/injected crash/);
    expect((await rs.read('AWSCURRENT')).keyId).not.toBe(previous.keyId);
    expect(recordOf(rs, previous).expireAt).toBe(lifetimeEnd);

    rs.counter.reset();
    await rs.invoke({ SecretId: rs.secretId, ClientRequestToken: token, Step: 'finishSecret' });
    const graceEnd = rs.sb.clock.now() + TEST_CONFIG.gracePeriodMs;
    expect(Date.parse(recordOf(rs, previous).expireAt!)).toBeLessThanOrEqual(graceEnd);
    expect(rs.counter.calls.filter((c) => c === 'api:updateKey')).toHaveLength(1);

    // Another retry changes nothing (never lengthens, no second write).
    const cut = recordOf(rs, previous).expireAt;
    rs.counter.reset();
    rs.sb.clock.advance(3_600_000);
    await rs.invoke({ SecretId: rs.secretId, ClientRequestToken: token, Step: 'finishSecret' });
    expect(recordOf(rs, previous).expireAt).toBe(cut);
    expect(rs.counter.calls.filter((c) => c === 'api:updateKey')).toHaveLength(0);
  });
});

describe('testSecret with a call the key may make; failures leave no keys behind (16 §3)', () => {
  const developerSecret = async (rs: RotationSandbox) => (await adminAndDeveloperSecrets(rs)).dev;

  it('admin-mode rotation of a developer key passes with the default test call', async () => {
    const rs = await sandbox();
    const dev = await developerSecret(rs);
    (rs.deps as { config: RotationConfig }).config = { ...TEST_CONFIG, adminSecretId: 'admin-key' };
    await rotate(rs, 'dev-key');
    const rotated = await readSecret(rs, 'dev-key');
    expect(rotated.keyId).not.toBe(dev.keyId);
    expect(await rs.authenticates(rotated)).toBe(true);
  });

  it('repeated failing tests delete the key each made: the key count does not grow', async () => {
    const rs = await sandbox();
    await developerSecret(rs);
    (rs.deps as { config: RotationConfig }).config = {
      ...TEST_CONFIG,
      adminSecretId: 'admin-key',
      // A developer key cannot list keys: this test call fails with 403 every time.
      testCall: { kind: 'list-keys' },
    };
    const keysBefore = rs.sb.store.state.keys.length;
    for (let attempt = 0; attempt < 4; attempt++) {
      await expect(rotate(rs, 'dev-key')).rejects.toThrow(/403|admin role|forbidden/i);
      expect(rs.sb.store.state.keys).toHaveLength(keysBefore);
      await rs.abandonPendingOf('dev-key');
    }
    // Nothing was disabled along the way: the developer key still works.
    expect(await rs.authenticates(await readSecret(rs, 'dev-key'))).toBe(true);
  });
});
