/**
 * Which roles a rotated key gets. Whoever may write the secret must not be able to choose them:
 * they come only from the service's record of the key the secret holds, found through its
 * `keyId` (the record's `keySuffix` is the key id's last 4 characters). What the secret says
 * about roles or its record is checked against that record and refused when it disagrees.
 */
import type { CreateKeyRequest, KeyRecord } from '../schemas';
import { keyRole, type KeyRole } from '../schemas';
import { RotationError } from './errors';
import { keySuffixOf } from './material';
import { findKeyRecord } from './ownership';

/** The fields of a secret value the record is found and checked by. */
export interface KeyClaims {
  keyId: string;
  keyRecordId?: string | undefined;
  keyName?: string | undefined;
  roles?: readonly string[] | undefined;
}

/**
 * The record of the key a secret holds. A `keyRecordId` must name a record whose suffix is the
 * key id's; without one, exactly one record must carry the suffix (narrowed by name).
 */
export function currentKeyRecord(
  secretId: string,
  records: readonly KeyRecord[],
  claims: KeyClaims,
): KeyRecord {
  const suffix = keySuffixOf(claims.keyId);
  if (claims.keyRecordId !== undefined) {
    const named = records.find((record) => record.id === claims.keyRecordId);
    if (named?.keySuffix !== suffix) {
      throw new RotationError(
        `${secretId} (AWSCURRENT): field keyRecordId does not name the record of its keyId ` +
          `(…${suffix}): ${named ? `that record belongs to key …${named.keySuffix}` : 'no such record'}; ` +
          'correct keyRecordId or remove it (the record is then found by the key id)',
        { secretId },
      );
    }
    return named;
  }
  const record = findKeyRecord(records, claims);
  if (!record) {
    throw new RotationError(
      `${secretId} (AWSCURRENT): field keyId matches no single key record (suffix …${suffix}); ` +
        'the key it names must exist on the service so the new key can be given its roles',
      { secretId },
    );
  }
  return record;
}

/**
 * The current key's role assignment, read from its record: `assignedRoles` when the service has
 * them (the deprecated `roles` may hold a pre-custom-roles value), else the record's `roles`.
 * A `roles` field in the secret must equal the record's roles; it is never used itself.
 */
export function roleAssignmentFor(
  secretId: string,
  record: KeyRecord,
  claimedRoles: readonly string[] | undefined,
): Pick<CreateKeyRequest, 'roles' | 'assignedRoleIds'> {
  const held = record.roles ?? undefined;
  if (claimedRoles !== undefined && !sameRoles(claimedRoles, held)) {
    throw new RotationError(
      `${secretId} (AWSCURRENT): field roles does not match the roles of its key (…${record.keySuffix}) ` +
        `on the service; remove it (the new key gets the roles of the current key's record) or correct it`,
      { secretId },
    );
  }
  const roleIds = record.assignedRoles?.map((role) => role.roleId) ?? [];
  if (roleIds.length > 0) return { assignedRoleIds: roleIds };
  const legacy = (held ?? []).filter((role): role is KeyRole => keyRole.safeParse(role).success);
  if (legacy.length > 0 && legacy.length === held?.length) return { roles: legacy };
  throw new RotationError(
    `${secretId}: the record of its key (…${record.keySuffix}) carries no assignedRoles and no ` +
      'roles a new key can be created with, so the new key cannot be given the same roles',
    { secretId },
  );
}

function sameRoles(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (b === undefined) return false;
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((role) => right.has(role));
}
