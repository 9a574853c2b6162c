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
export const managementKeySecret = /* @__PURE__ */ keySecretSchema();

/**
 * Made in a function so the schema above is pure: a bundle that only authenticates
 * (managementAuth) carries neither it nor its fields. The auth fields are spread rather than
 * added with z.extend: zod's extend helper is 1.2 KiB of a bundle, for this alone.
 */
function keySecretSchema() {
  return z.looseObject({
    ...managementAuthFields,
    keyRecordId: z.optional(uuid),
    /** Optional: a key record with `assignedRoles` gives the new key its role assignment. */
    roles: z.optional(z.array(keyRole).check(z.minLength(1))),
    ipAccessList: z.optional(z.array(ipAccessEntry)),
    expireAt: expiry,
  });
}
export type ManagementKeySecret = z.infer<typeof managementKeySecret>;

// Lazy: made on first use, so a bundle that never reads this secret (the key sentinel) drops it.
export const observabilityTokenSecret = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({ token: z.string().check(z.minLength(1)) }),
);
export type ObservabilityTokenSecret = z.infer<typeof observabilityTokenSecret>;
