/** The key audit, pure: records + activities + our secrets + now + policy -> findings. */
import { describe, expect, it } from 'vitest';
import {
  atOrAbove,
  auditKeys,
  DEFAULT_AUDIT_POLICY,
  keyNameFor,
  keyTagsFor,
  listKeysByRisk,
  managedSecretFrom,
  managementOf,
  ownedNamePrefix,
  type AuditInput,
  type KeyFinding,
  type ManagedSecret,
} from '../../../lib/keys';
import type { Activity, KeyRecord } from '../../../lib/schemas';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 26, 12);
const iso = (ms: number) => new Date(ms).toISOString();
const ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:cloudops/watchdog-key-AbCdEf';
const PREFIX = DEFAULT_AUDIT_POLICY.namePrefix;

let n = 0;
function key(fields: Partial<KeyRecord> = {}): KeyRecord {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name: `key-${n}`,
    roles: ['developer'],
    keySuffix: `S${String(n).padStart(3, '0')}`,
    createdAt: iso(NOW - 10 * DAY),
    usedAt: iso(NOW - DAY),
    expireAt: iso(NOW + 60 * DAY),
    ipAccessList: [{ source: '10.0.0.0/8' }],
    state: 'enabled',
    ...fields,
  };
}

function secret(held: KeyRecord | undefined, extra: Partial<ManagedSecret> = {}): ManagedSecret {
  return {
    secretId: ARN,
    name: 'cloudops/watchdog-key',
    rotationEnabled: true,
    seeded: true,
    key: held && {
      keyRecordId: held.id,
      keySuffix: held.keySuffix,
      expireAt: held.expireAt,
    },
    ...extra,
  };
}

function audit(input: Partial<AuditInput>): KeyFinding[] {
  return auditKeys({
    keys: [],
    activities: [],
    secrets: [],
    now: NOW,
    policy: DEFAULT_AUDIT_POLICY,
    ...input,
  });
}
const checks = (findings: KeyFinding[]) => findings.map((f) => `${f.severity} ${f.check}`);

describe('auditKeys: one key at a time', () => {
  it('a tidy key (expiry, narrow role, IP list, in use) has no finding', () => {
    expect(audit({ keys: [key()] })).toEqual([]);
  });

  it('a never-expiring admin key is high; a never-expiring developer key medium', () => {
    const admin = key({ expireAt: null, roles: ['admin'] });
    const dev = key({ expireAt: null });
    const findings = audit({ keys: [admin, dev] });
    expect(
      findings.find((f) => f.key?.id === admin.id && f.check === 'never-expires'),
    ).toMatchObject({
      severity: 'high',
      message: `key ${admin.name} (…${admin.keySuffix}) never expires and holds the admin role`,
      action: expect.stringContaining('cloudops keys adopt') as string,
    });
    expect(findings.find((f) => f.key?.id === dev.id)?.severity).toBe('medium');
  });

  it('reads the admin role from assignedRoles when the deprecated roles say otherwise', () => {
    const record = key({
      roles: ['developer'],
      assignedRoles: [{ roleId: 'r1', roleName: 'Admin', roleType: 'system' }],
    });
    expect(checks(audit({ keys: [record] }))).toEqual(['low admin-role']);
  });

  it('flags no IP access list, and a key idle for the policy days (never used: since made)', () => {
    const open = key({ ipAccessList: [] });
    const idle = key({ usedAt: iso(NOW - 91 * DAY) });
    const never = key({ usedAt: undefined, createdAt: iso(NOW - 120 * DAY) });
    const young = key({ usedAt: undefined, createdAt: iso(NOW - 10 * DAY) });
    const findings = audit({ keys: [open, idle, never, young] });
    expect(findings.filter((f) => f.key?.id === open.id).map((f) => f.check)).toEqual([
      'no-ip-access-list',
    ]);
    expect(findings.find((f) => f.key?.id === idle.id)).toMatchObject({
      check: 'unused',
      severity: 'medium',
      message: expect.stringContaining('has not been used for 91 days') as string,
      action: `revoke it: cloudops keys revoke ${idle.id}`,
    });
    expect(findings.find((f) => f.key?.id === never.id)?.message).toMatch(
      /has never been used since it was made .* \(120 days ago\)/,
    );
    expect(findings.some((f) => f.key?.id === young.id)).toBe(false);
    // The policy decides what unused means.
    const lenient = audit({
      keys: [idle],
      policy: { ...DEFAULT_AUDIT_POLICY, unusedDays: 180 },
    });
    expect(lenient).toEqual([]);
  });

  it('an unmanaged key expiring within the window is medium; ours is not "expiring" but overdue', () => {
    const soon = key({ expireAt: iso(NOW + 5 * DAY) });
    const later = key({ expireAt: iso(NOW + 30 * DAY) });
    const ours = key({ expireAt: iso(NOW + 5 * DAY) });
    const findings = audit({ keys: [soon, later, ours], secrets: [secret(ours)] });
    expect(findings.find((f) => f.key?.id === soon.id)).toMatchObject({
      check: 'expiring-unmanaged',
      severity: 'medium',
    });
    expect(findings.some((f) => f.key?.id === later.id)).toBe(false);
    expect(findings.find((f) => f.key?.id === ours.id)).toMatchObject({
      check: 'rotation-overdue',
      severity: 'high',
      secretId: ARN,
      action: expect.stringContaining(
        'cloudops keys rotate --secret-id cloudops/watchdog-key',
      ) as string,
    });
  });

  it('a disabled key is low unless a rotator is retiring it; an expired one is not audited', () => {
    const disabled = key({ state: 'disabled' });
    const retired = key({
      state: 'disabled',
      name: keyNameFor(ownedNamePrefix(PREFIX, ARN), NOW - 40 * DAY),
    });
    const current = key();
    const expired = key({ expireAt: iso(NOW - DAY), roles: ['admin'], ipAccessList: [] });
    const findings = audit({
      keys: [disabled, retired, current, expired],
      secrets: [secret(current)],
    });
    expect(findings.map((f) => [f.key?.id, f.check])).toEqual([[disabled.id, 'disabled']]);
    expect(findings[0].action).toBe(`delete it: cloudops keys revoke ${disabled.id} --grace 0`);
  });

  it('names who made a key outside rotation, from its creation activity (record id or key ID)', () => {
    const byUser = key();
    const byApi = key();
    const activities: Activity[] = [
      {
        type: 'key_create',
        targetKeyId: byUser.id,
        createdAt: iso(NOW - 3 * DAY),
        actorType: 'user',
        actorDetails: 'email: ana@example.com',
        actorIpAddress: '198.51.100.4',
        userAgent: 'console',
      },
      {
        type: 'openapi_key_update',
        keyUpdateType: 'created',
        // A key ID in the target field: matched by the key's suffix.
        targetKeyId: `AbCdEfGh${byApi.keySuffix}`,
        createdAt: iso(NOW - 2 * DAY),
        actorType: 'api',
        actorId: 'k-1',
      },
      { type: 'openapi_key_update', keyUpdateType: 'name-changed', targetKeyId: byUser.id },
    ];
    const findings = audit({ keys: [byUser, byApi], activities });
    expect(findings.find((f) => f.key?.id === byUser.id)?.message).toBe(
      `key ${byUser.name} (…${byUser.keySuffix}) was made outside rotation by user email: ana@example.com at ${iso(NOW - 3 * DAY)} from 198.51.100.4 (console)`,
    );
    expect(findings.find((f) => f.key?.id === byApi.id)?.message).toMatch(
      /made outside rotation by api k-1 at /,
    );
    // Keys the rotator made are not "outside rotation", whatever the trail says.
    const ours = key();
    const trail: Activity[] = [{ type: 'key_create', targetKeyId: ours.id, actorType: 'api' }];
    expect(audit({ keys: [ours], activities: trail, secrets: [secret(ours)] })).toEqual([]);
  });

  it('sorts high before medium before low', () => {
    const findings = audit({
      keys: [key({ ipAccessList: [] }), key({ expireAt: null, roles: ['admin'] })],
    });
    const ranks = findings.map((f) => f.severity);
    expect(ranks).toEqual([...ranks].sort((a, b) => (atOrAbove(a, b) ? -1 : 1)));
    expect(ranks[0]).toBe('high');
  });
});

describe('auditKeys: our key secrets', () => {
  it('a secret whose key is gone from the service is high; rotation off is high', () => {
    const gone = key();
    expect(checks(audit({ keys: [], secrets: [secret(gone)] }))).toEqual(['high key-missing']);
    const held = key();
    expect(
      checks(audit({ keys: [held], secrets: [secret(held, { rotationEnabled: false })] })),
    ).toEqual(['high rotation-overdue']);
  });

  it('a seeded secret that names no key yet is medium; a placeholder is not a finding', () => {
    expect(checks(audit({ secrets: [secret(undefined)] }))).toEqual(['medium not-tracked']);
    expect(audit({ secrets: [secret(undefined, { seeded: false })] })).toEqual([]);
  });

  it('without the key list, the expiry on the tags decides (close or past: high)', () => {
    const soon = key({ expireAt: iso(NOW + 3 * DAY) });
    const fine = key({ expireAt: iso(NOW + 30 * DAY) });
    expect(checks(audit({ keys: undefined, secrets: [secret(soon)] }))).toEqual([
      'high rotation-overdue',
    ]);
    expect(audit({ keys: undefined, secrets: [secret(fine)] })).toEqual([]);
  });
});

describe('who manages a key', () => {
  it('current by the tags, retiring by the previous tag or the rotator marker, other deployments by marker', () => {
    const current = key();
    const previous = key({ name: 'made-in-console' });
    const earlier = key({ name: keyNameFor(ownedNamePrefix(PREFIX, ARN), NOW - 60 * DAY) });
    const foreign = key({
      name: keyNameFor(ownedNamePrefix(PREFIX, `${ARN}-elsewhere`), NOW - DAY),
    });
    const tags = keyTagsFor({
      keyRecordId: current.id,
      keySuffix: current.keySuffix,
      expireAt: current.expireAt,
      previousKeyRecordId: previous.id,
    });
    const secrets = [managedSecretFrom({ ARN, Name: 'cloudops/watchdog-key', Tags: tags }, ARN)];
    expect(managementOf(current, secrets, PREFIX)?.kind).toBe('current');
    expect(managementOf(previous, secrets, PREFIX)?.kind).toBe('retiring');
    expect(managementOf(earlier, secrets, PREFIX)?.kind).toBe('retiring');
    expect(managementOf(foreign, secrets, PREFIX)).toMatchObject({ kind: 'other-deployment' });
    expect(managementOf(key(), secrets, PREFIX)).toBeUndefined();
    const listing = listKeysByRisk([current, previous, foreign], [], secrets, PREFIX);
    expect(listing.map((row) => row.managedBy)).toEqual([
      'another deployment (' + foreign.name.slice(0, PREFIX.length + 11) + '…)',
      'cloudops/watchdog-key (current)',
      'cloudops/watchdog-key (retiring)',
    ]);
  });

  it('a secret with only its deploy-time version is not seeded; one with AWSPREVIOUS is', () => {
    const placeholder = managedSecretFrom({ ARN, VersionIdsToStages: { v1: ['AWSCURRENT'] } }, ARN);
    const seeded = managedSecretFrom(
      { ARN, VersionIdsToStages: { v1: ['AWSPREVIOUS'], v2: ['AWSCURRENT'] } },
      ARN,
    );
    expect([placeholder.seeded, seeded.seeded]).toEqual([false, true]);
  });
});
