import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/errors';
import {
  findKeyRecord,
  isUsable,
  keyNameFor,
  nextSecretValue,
  ownedNamePrefix,
  readRotationConfig,
} from '../../../lib/keys';
import type { KeyRecord, ManagementKeySecret } from '../../../lib/schemas';

describe('readRotationConfig', () => {
  it('has safe defaults: 90-day keys, 1-day grace, a test call chosen from the roles', () => {
    expect(readRotationConfig({})).toEqual({
      lifetimeMs: 90 * 86_400_000,
      gracePeriodMs: 86_400_000,
      namePrefix: 'cloudops-rotated-',
      adminSecretId: undefined,
      testCall: { kind: 'auto' },
      warnDays: 7,
    });
  });

  it('parses durations, the admin secret and a list-pipes test call', () => {
    const config = readRotationConfig({
      CLOUDOPS_KEY_LIFETIME: '12h',
      CLOUDOPS_KEY_GRACE_PERIOD: '30m',
      CLOUDOPS_KEY_NAME_PREFIX: 'ci-',
      CLOUDOPS_ROTATION_ADMIN_SECRET_ID: 'admin-key',
      CLOUDOPS_ROTATION_TEST_CALL: 'list-pipes:6f1c2b1e-8a0e-4b7c-9d3e-2f4a5b6c7d8e',
      CLOUDOPS_KEY_EXPIRY_WARN_DAYS: '3',
    });
    expect(config).toMatchObject({
      lifetimeMs: 12 * 3_600_000,
      gracePeriodMs: 30 * 60_000,
      namePrefix: 'ci-',
      adminSecretId: 'admin-key',
      testCall: { kind: 'list-pipes', serviceId: '6f1c2b1e-8a0e-4b7c-9d3e-2f4a5b6c7d8e' },
      warnDays: 3,
    });
  });

  it.each([
    [{ CLOUDOPS_KEY_LIFETIME: '90 days' }, /CLOUDOPS_KEY_LIFETIME.*duration/],
    [{ CLOUDOPS_KEY_LIFETIME: '0d' }, /CLOUDOPS_KEY_LIFETIME.*greater than zero/],
    // No key lives past a year, and no Date arithmetic meets a number it cannot hold.
    [{ CLOUDOPS_KEY_LIFETIME: '99999999999d' }, /CLOUDOPS_KEY_LIFETIME.*at most 365d/],
    [{ CLOUDOPS_KEY_LIFETIME: '36500d' }, /CLOUDOPS_KEY_LIFETIME.*at most 365d/],
    [{ CLOUDOPS_KEY_EXPIRY_WARN_DAYS: '99999999999' }, /CLOUDOPS_KEY_EXPIRY_WARN_DAYS/],
    [{ CLOUDOPS_ROTATION_TEST_CALL: 'delete-everything' }, /CLOUDOPS_ROTATION_TEST_CALL/],
    [{ CLOUDOPS_ROTATION_TEST_CALL: 'list-pipes:nope' }, /CLOUDOPS_ROTATION_TEST_CALL/],
    [{ CLOUDOPS_KEY_NAME_PREFIX: 'has space' }, /CLOUDOPS_KEY_NAME_PREFIX/],
    [
      { CLOUDOPS_KEY_LIFETIME: '1d', CLOUDOPS_KEY_GRACE_PERIOD: '2d' },
      /GRACE_PERIOD must be shorter/,
    ],
  ])('rejects %j naming the variable', (env, message) => {
    expect(() => readRotationConfig(env)).toThrow(ConfigError);
    expect(() => readRotationConfig(env)).toThrow(message);
  });
});

const record = (over: Partial<KeyRecord>): KeyRecord => ({
  id: '00000000-0000-4000-8000-000000000001',
  name: 'k',
  roles: ['admin'],
  keySuffix: 'abcd',
  expireAt: null,
  state: 'enabled',
  ...over,
});

describe('key ownership and lookup', () => {
  it('names carry the prefix, a per-secret tag and a sortable timestamp', () => {
    // Same secret name, two deployments (accounts, or a secret recreated): different owners.
    const arn = (account: string, suffix: string) =>
      `arn:aws:secretsmanager:eu-west-1:${account}:secret:cloudops/api-key-${suffix}`;
    const a = ownedNamePrefix('cloudops-rotated-', arn('111111111111', 'AbCdEf'));
    const b = ownedNamePrefix('cloudops-rotated-', arn('222222222222', 'AbCdEf'));
    const c = ownedNamePrefix('cloudops-rotated-', arn('111111111111', 'GhIjKl'));
    expect(a).toMatch(/^cloudops-rotated-[0-9a-f]{10}-$/);
    expect(new Set([a, b, c]).size).toBe(3);
    expect(ownedNamePrefix('cloudops-rotated-', arn('111111111111', 'AbCdEf'))).toBe(a);
    expect(keyNameFor(a, Date.UTC(2025, 0, 2, 3, 4, 5, 6))).toBe(`${a}20250102T030405.006Z`);
  });

  it('finds a record by id, else by suffix narrowed by name, and refuses to guess', () => {
    const one = record({ id: '00000000-0000-4000-8000-000000000001', name: 'x-1' });
    const two = record({ id: '00000000-0000-4000-8000-000000000002', name: 'x-2' });
    expect(findKeyRecord([one, two], { keyId: 'zzzzabcd', keyRecordId: two.id })).toBe(two);
    // A record id whose key is another one (its suffix differs) is not taken on the secret's word.
    expect(findKeyRecord([one, two], { keyId: 'zzzzwxyz', keyRecordId: two.id })).toBeUndefined();
    expect(findKeyRecord([one, two], { keyId: 'zzzzabcd', keyName: 'x-1' })).toBe(one);
    expect(findKeyRecord([one, two], { keyId: 'zzzzabcd' })).toBeUndefined();
    expect(findKeyRecord([one], { keyId: 'zzzzabcd' })).toBe(one);
    expect(findKeyRecord([one], { keyId: 'zzzzwxyz' })).toBeUndefined();
  });

  it('usable = enabled and not expired', () => {
    const now = Date.UTC(2025, 0, 1);
    expect(isUsable(record({}), now)).toBe(true);
    expect(isUsable(record({ state: 'disabled' }), now)).toBe(false);
    expect(isUsable(record({ expireAt: new Date(now).toISOString() }), now)).toBe(false);
    expect(isUsable(record({ expireAt: new Date(now + 1).toISOString() }), now)).toBe(true);
  });

  it('the next secret value keeps the shape, replaces the key fields and drops the old record id', () => {
    const current: ManagementKeySecret & { extra: string } = {
      organizationId: '00000000-0000-4000-8000-0000000000aa',
      keyId: 'old',
      keySecret: 'old-secret',
      keyRecordId: '00000000-0000-4000-8000-0000000000bb',
      roles: ['admin'],
      ipAccessList: [{ source: '10.0.0.0/8' }],
      expireAt: null,
      extra: 'kept',
    };
    const next = nextSecretValue(
      current,
      { keyId: 'new', keySecret: 'new-secret' },
      'n',
      '2025-01-01T00:00:00.000Z',
    );
    expect(next).toEqual({
      organizationId: current.organizationId,
      keyId: 'new',
      keySecret: 'new-secret',
      roles: ['admin'],
      ipAccessList: [{ source: '10.0.0.0/8' }],
      expireAt: '2025-01-01T00:00:00.000Z',
      keyName: 'n',
      extra: 'kept',
    });
  });
});
