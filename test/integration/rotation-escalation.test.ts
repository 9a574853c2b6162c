/**
 * Whoever may write a key's secret cannot rotate it into a stronger key (admin-secret mode,
 * where the rotator manages keys with an organization admin key): the new key's roles come from
 * the current key's own record, and a `roles` or `keyRecordId` the rotator cannot tie to the
 * secret's `keyId` stops the rotation before anything is created. Its errors keep ids readable.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  RotateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it } from 'vitest';
import type { RotationConfig } from '../../lib/keys';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import { caught } from '../support/caught';
import {
  adminAndDeveloperSecrets,
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

interface Setup {
  rs: RotationSandbox;
  admin: ManagementKeySecret;
  dev: ManagementKeySecret & { keyRecordId: string };
}

/** The sandbox's admin key as the admin secret; a developer key in `dev-key`, rotated with it. */
async function adminMode(testCall: RotationConfig['testCall'] = { kind: 'auto' }): Promise<Setup> {
  const rs = await startRotationSandbox();
  open.push(rs);
  const { admin, dev } = await adminAndDeveloperSecrets(rs, false);
  (rs.deps as { config: RotationConfig }).config = {
    ...TEST_CONFIG,
    adminSecretId: 'admin-key',
    testCall,
  };
  return { rs, admin, dev };
}

/** What someone allowed to write the secret (but not to manage keys) puts there. */
const tamper = (s: Setup, value: Record<string, unknown>) =>
  s.rs.sm.send(
    new PutSecretValueCommand({ SecretId: 'dev-key', SecretString: JSON.stringify(value) }),
  );

const rotateDev = (s: Setup) =>
  s.rs.sm.send(new RotateSecretCommand({ SecretId: 'dev-key', RotationLambdaARN: LAMBDA }));

function writes(s: Setup): string[] {
  return s.rs.sb.requestLog
    .entries()
    .filter((e) => e.surface === 'management' && e.method !== 'GET')
    .map((e) => `${e.method} ${e.path}`);
}

describe('a key secret cannot be talked into admin', () => {
  it('a roles field naming admin fails before any create, naming the secret and the field', async () => {
    const s = await adminMode();
    await tamper(s, { ...s.dev, roles: ['admin'] });
    const keys = s.rs.sb.store.state.keys.length;
    s.rs.sb.requestLog.clear();
    const error = await caught(rotateDev(s));
    expect(error.message).toMatch(/dev-key-\w+ \(AWSCURRENT\): field roles does not match/);
    expect(writes(s)).toEqual([]);
    expect(s.rs.sb.store.state.keys).toHaveLength(keys);
  });

  it("a keyRecordId pointing at the admin key's record fails naming keyRecordId", async () => {
    const s = await adminMode();
    const adminRecord = s.rs.sb.store.state.keys.find(
      (k) => k.keySuffix === s.admin.keyId.slice(-4),
    )!;
    await tamper(s, { ...s.dev, keyRecordId: adminRecord.id });
    const keys = s.rs.sb.store.state.keys.length;
    s.rs.sb.requestLog.clear();
    const error = await caught(rotateDev(s));
    expect(error.message).toMatch(
      /dev-key-\w+ \(AWSCURRENT\): field keyRecordId does not name the record of its keyId/,
    );
    expect(writes(s)).toEqual([]);
    expect(s.rs.sb.store.state.keys).toHaveLength(keys);
  });

  it('an untouched secret (no roles in it) rotates into a key with exactly the developer role', async () => {
    const s = await adminMode();
    await rotateDev(s);
    const out = await s.rs.sm.send(new GetSecretValueCommand({ SecretId: 'dev-key' }));
    const rotated = managementKeySecret.parse(JSON.parse(out.SecretString!));
    const record = s.rs.sb.store.state.keys.find((k) => k.keySuffix === rotated.keyId.slice(-4))!;
    expect(rotated.keyId).not.toBe(s.dev.keyId);
    expect(record.roles).toEqual(['developer']);
  });
});

describe('ids stay readable in rotation errors', () => {
  it('a failed step names the organization (and the key record) it failed for; the key secret stays hidden', async () => {
    // A developer key cannot list keys: the test call answers 403.
    const s = await adminMode({ kind: 'list-keys' });
    const error = await caught(rotateDev(s));
    expect(error.message).toMatch(/failed at step testSecret/);
    expect(error.message).toContain(`/v1/organizations/${s.dev.organizationId}/keys`);
    expect(error.message).not.toContain(s.dev.keySecret);
  });
});
