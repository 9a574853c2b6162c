import { describe, expect, it } from 'vitest';
import { roleAssignmentFor } from '../../../lib/keys/policy';
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
    expect(roleAssignmentFor('s', current, { roles: ['developer'] })).toEqual({
      assignedRoleIds: ['r-1', 'r-2'],
    });
  });

  it('falls back to the secret roles when the record has no assignment', () => {
    expect(roleAssignmentFor('s', record({ roles: ['admin'] }), { roles: ['admin'] })).toEqual({
      roles: ['admin'],
    });
    expect(roleAssignmentFor('s', undefined, { roles: ['developer'] })).toEqual({
      roles: ['developer'],
    });
  });

  it('works when the record carries no roles at all', () => {
    const current = record({ assignedRoles: [{ roleId: 'r-9' }] });
    expect(current.roles).toBeUndefined();
    expect(roleAssignmentFor('s', current, {})).toEqual({ assignedRoleIds: ['r-9'] });
  });

  it('refuses, naming the secret, when neither side says which roles', () => {
    expect(() => roleAssignmentFor('prod/key', record({ assignedRoles: [] }), {})).toThrow(
      /prod\/key holds no roles.*add "roles" to the secret value/,
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
