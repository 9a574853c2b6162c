import * as z from 'zod/mini';
import { ipAccessEntry, keyRole } from './key';
import { expiry, uuid } from './common';

const managementAuthFields = {
  organizationId: uuid,
  keyId: z.string().check(z.minLength(1)),
  keySecret: z.string().check(z.minLength(1)),
};

/** What a management API call needs to authenticate (env credentials carry only this). */
export const managementAuth = z.looseObject(managementAuthFields);
export type ManagementAuth = z.infer<typeof managementAuth>;

/**
 * Management key secret (DESIGN.md): keyId is the Basic user, keyRecordId the `/keys/{id}` UUID.
 * keyRecordId is optional: a rotated version is stored (AWSPENDING) before its key exists, so
 * the server-made record id cannot be in it; the rotator finds the record by keySuffix + name.
 */
export const managementKeySecret = z.looseObject({
  // Spread rather than z.extend: zod's extend helper (1.2 KiB of a bundle) for this alone.
  ...managementAuthFields,
  keyRecordId: z.optional(uuid),
  /** Optional: a key record with `assignedRoles` gives the new key its role assignment. */
  roles: z.optional(z.array(keyRole).check(z.minLength(1))),
  ipAccessList: z.optional(z.array(ipAccessEntry)),
  expireAt: expiry,
});
export type ManagementKeySecret = z.infer<typeof managementKeySecret>;

export const observabilityTokenSecret = z.looseObject({ token: z.string().check(z.minLength(1)) });
export type ObservabilityTokenSecret = z.infer<typeof observabilityTokenSecret>;
