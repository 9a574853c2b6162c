/**
 * Rotation against both sandbox profiles (issue 15 §7, §9): the spec snapshot, whose keys carry
 * `roles`, and today's service, whose records carry `assignedRoles` (custom roles included) and
 * whose creates take `assignedRoleIds`. The new key must hold exactly the old key's assignment.
 */
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it } from 'vitest';
import { createManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import type { KeyRow } from '../../sandbox/index';
import { DAY, startRotationSandbox, TEST_CONFIG, type RotationSandbox } from './rotation-harness';

let open: RotationSandbox[] = [];
afterEach(async () => {
  await Promise.all(open.map((rs) => rs.close()));
  open = [];
});
async function sandbox(profile: 'current' | 'spec'): Promise<RotationSandbox> {
  const rs = await startRotationSandbox(TEST_CONFIG, profile);
  open.push(rs);
  return rs;
}
const recordOf = (rs: RotationSandbox, key: ManagementKeySecret): KeyRow =>
  rs.sb.store.state.keys.find((k) => k.keySuffix === key.keyId.slice(-4))!;
const roleIds = (row: KeyRow) => (row.assignedRoles ?? []).map((r) => r.roleId).sort();

describe.each(['current', 'spec'] as const)('rotation on the %s profile', (profile) => {
  it('two rotations: the new key authenticates with the old one’s roles, the old one until its grace', async () => {
    const rs = await sandbox(profile);
    const first = await rs.read('AWSCURRENT');
    await rs.rotate();
    const second = await rs.read('AWSCURRENT');
    expect(second.keyId).not.toBe(first.keyId);
    expect(await rs.authenticates(second)).toBe(true);
    expect(await rs.authenticates(first)).toBe(true);
    expect(recordOf(rs, second).roles).toEqual(recordOf(rs, first).roles);
    expect(roleIds(recordOf(rs, second))).toEqual(roleIds(recordOf(rs, first)));
    rs.sb.clock.advance(TEST_CONFIG.gracePeriodMs + 60_000);
    expect(await rs.authenticates(first)).toBe(false);
    rs.sb.clock.advance(DAY);
    await rs.rotate();
    const third = await rs.read('AWSCURRENT');
    expect(await rs.authenticates(third)).toBe(true);
    expect(recordOf(rs, third).expireAt).not.toBeNull();
  });
});

describe('rotation on the current profile: role assignment', () => {
  it('copies a custom role (assignedRoleIds) and needs no roles in the secret', async () => {
    const rs = await sandbox('current');
    const current = await rs.read('AWSCURRENT');
    const catalog = rs.sb.store.state.roleCatalog!;
    const admin = catalog.find((r) => r.roleName === 'Admin')!;
    const custom = catalog.find((r) => r.roleType === 'custom')!;
    // An operator gave the key a custom role next to Admin; `roles` cannot express that.
    const api = createManagementClient({
      baseUrl: rs.sb.info.apiUrl,
      credentials: staticCredentials('admin', current, managementKeySecret),
      rateLimit: false,
    });
    await api.updateKey(recordOf(rs, current).id, {
      assignedRoleIds: [admin.roleId, custom.roleId],
    });
    api.close();
    // The secret as a user of today's service writes it: no deprecated `roles`.
    const { roles: _dropped, ...withoutRoles } = current;
    await rs.sm.send(
      new PutSecretValueCommand({
        SecretId: rs.secretId,
        SecretString: JSON.stringify(withoutRoles),
      }),
    );

    await rs.rotate();
    const rotated = await rs.read('AWSCURRENT');
    expect(rotated.keyId).not.toBe(current.keyId);
    expect(rotated.roles).toBeUndefined();
    expect(roleIds(recordOf(rs, rotated))).toEqual([admin.roleId, custom.roleId].sort());
    expect(await rs.authenticates(rotated)).toBe(true);
  });
});
