import { describe, expect, it } from 'vitest';
import { currentKeyRecord, roleAssignmentFor } from '../../../lib/keys/assignment';
import { RotationError } from '../../../lib/keys/errors';
import { keyRecord, managementKeySecret } from '../../../lib/schemas';

const record = (extra: Record<string, unknown>) =>
  keyRecord.parse({
    id: '5d5f2f0e-3c1e-4f43-9c3a-2b1f7f3b9a11',
    name: 'rotator-1',
    keySuffix: 'abcd',
    expireAt: null,
    ...extra,
  });

describe('the role assignment a rotated key is given', () => {
  it('copies assignedRoles as assignedRoleIds, not the deprecated roles', () => {
    const current = record({
      roles: ['developer'],
      assignedRoles: [
        { roleId: 'r-1', roleName: 'Admin', roleType: 'system' },
        { roleId: 'r-2', roleName: 'Billing reader', roleType: 'custom' },
      ],
    });
    expect(roleAssignmentFor('s', current, ['developer'])).toEqual({
      assignedRoleIds: ['r-1', 'r-2'],
    });
  });

  it("takes the record's roles when it has no assignment, whatever the secret leaves out", () => {
    expect(roleAssignmentFor('s', record({ roles: ['developer'] }), undefined)).toEqual({
      roles: ['developer'],
    });
    expect(roleAssignmentFor('s', record({ roles: ['admin'] }), ['admin'])).toEqual({
      roles: ['admin'],
    });
  });

  it('works when the record carries no roles at all', () => {
    const current = record({ assignedRoles: [{ roleId: 'r-9' }] });
    expect(current.roles).toBeUndefined();
    expect(roleAssignmentFor('s', current, undefined)).toEqual({ assignedRoleIds: ['r-9'] });
  });

  it('a roles field the key does not hold fails naming the secret and the field: no admin by asking', () => {
    const developer = record({ roles: ['developer'] });
    expect(() => roleAssignmentFor('prod/key', developer, ['admin'])).toThrow(
      /prod\/key \(AWSCURRENT\): field roles does not match the roles of its key \(…abcd\)/,
    );
    expect(() => roleAssignmentFor('prod/key', developer, ['developer', 'admin'])).toThrow(
      RotationError,
    );
    // A record without roles cannot vouch for any roles the secret claims.
    expect(() =>
      roleAssignmentFor('prod/key', record({ assignedRoles: [{ roleId: 'r-9' }] }), ['admin']),
    ).toThrow(/field roles/);
  });

  it('refuses, naming the secret, when the record says nothing usable', () => {
    expect(() => roleAssignmentFor('prod/key', record({ assignedRoles: [] }), undefined)).toThrow(
      /prod\/key: the record of its key \(…abcd\) carries no assignedRoles and no roles/,
    );
    // A custom-roles organization's label that no create request accepts.
    expect(() => roleAssignmentFor('prod/key', record({ roles: ['Billing'] }), undefined)).toThrow(
      RotationError,
    );
  });

  it('a secret value without roles is accepted (the record supplies them)', () => {
    const parsed = managementKeySecret.safeParse({
      organizationId: '5d5f2f0e-3c1e-4f43-9c3a-2b1f7f3b9a12',
      keyId: 'kid',
      keySecret: 'ksecret',
      expireAt: null,
    });
    expect(parsed.success).toBe(true);
  });
});

describe("the current key's record", () => {
  const mine = record({ id: '00000000-0000-4000-8000-000000000001', keySuffix: 'abcd' });
  const admin = record({
    id: '00000000-0000-4000-8000-000000000002',
    name: 'org-admin',
    keySuffix: 'wxyz',
    roles: ['admin'],
  });

  it('is found through the key id: its suffix, or a keyRecordId whose record carries it', () => {
    expect(currentKeyRecord('s', [admin, mine], { keyId: 'KEY-abcd' })).toBe(mine);
    expect(currentKeyRecord('s', [admin, mine], { keyId: 'KEY-abcd', keyRecordId: mine.id })).toBe(
      mine,
    );
  });

  it("a keyRecordId pointing at another key's record fails naming the secret and the field", () => {
    const error = (() => {
      try {
        currentKeyRecord('prod/key', [admin, mine], { keyId: 'KEY-abcd', keyRecordId: admin.id });
      } catch (e) {
        return e as RotationError;
      }
      throw new Error('expected a refusal');
    })();
    expect(error).toBeInstanceOf(RotationError);
    expect(error.secretId).toBe('prod/key');
    expect(error.message).toMatch(
      /prod\/key \(AWSCURRENT\): field keyRecordId does not name the record of its keyId \(…abcd\): that record belongs to key …wxyz/,
    );
    expect(() =>
      currentKeyRecord('prod/key', [mine], {
        keyId: 'KEY-abcd',
        keyRecordId: '00000000-0000-4000-8000-00000000dead',
      }),
    ).toThrow(/field keyRecordId .*no such record/);
  });

  it('a key id no record carries fails naming the field keyId', () => {
    expect(() => currentKeyRecord('prod/key', [admin], { keyId: 'KEY-abcd' })).toThrow(
      /prod\/key \(AWSCURRENT\): field keyId matches no single key record \(suffix …abcd\)/,
    );
  });
});
