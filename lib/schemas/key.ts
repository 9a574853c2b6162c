import * as z from 'zod/mini';
import { expiry, isoDateTime, uuid } from './common';

export const keyRole = /* @__PURE__ */ z.lazy(() =>
  z.enum(['admin', 'developer', 'query_endpoints']),
);
export type KeyRole = z.infer<typeof keyRole>;
export const keyRoles = /* @__PURE__ */ z.lazy(() =>
  z.array(keyRole).check(z.minLength(1, 'a key carries at least 1 role')),
);

export const keyState = /* @__PURE__ */ z.lazy(() => z.enum(['enabled', 'disabled']));
export type KeyState = z.infer<typeof keyState>;

export const ipAccessEntry = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    source: z.string().check(z.minLength(1)),
    description: z.optional(z.string()),
  }),
);
export type IpAccessEntry = z.infer<typeof ipAccessEntry>;

/** The current service's role assignment (`roles` is deprecated; custom roles exist). */
export const assignedRole = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    roleId: z.string().check(z.minLength(1)),
    roleName: z.nullish(z.string()),
    roleType: z.nullish(z.string()),
  }),
);

/** Key record: `id` is the record UUID for `/keys/{id}` paths, NOT the Basic-auth key ID. */
export const keyRecord = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    id: uuid,
    name: z.string(),
    /** Deprecated and absent on some records; custom-role organizations may hold any name. */
    roles: z.nullish(z.array(z.string())),
    assignedRoles: z.nullish(z.array(assignedRole)),
    keySuffix: z.string(),
    createdAt: z.optional(isoDateTime),
    expireAt: expiry,
    usedAt: z.optional(z.nullable(isoDateTime)),
    ipAccessList: z.optional(z.array(ipAccessEntry)),
    /** Present on the real record though the spec omits it. */
    state: z.optional(keyState),
  }),
);
export type KeyRecord = z.infer<typeof keyRecord>;

/** SHA-256 hashes (base64 of the raw digest) that let the caller choose the key material. */
export const hashData = /* @__PURE__ */ z.lazy(() =>
  z.object({
    keyIdHash: z.string().check(z.minLength(1)),
    keyIdSuffix: z.string().check(z.minLength(1)),
    keySecretHash: z.string().check(z.minLength(1)),
  }),
);
export type HashData = z.infer<typeof hashData>;

export const createKeyRequest = /* @__PURE__ */ z.lazy(() =>
  z.object({
    name: z.string().check(z.minLength(1)),
    expireAt: z.optional(z.nullable(isoDateTime)),
    state: z.optional(keyState),
    hashData: z.optional(hashData),
    roles: z.optional(keyRoles),
    /** The current service's way to give a key its roles (role UUIDs). */
    assignedRoleIds: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
    ipAccessList: z.optional(z.array(ipAccessEntry)),
  }),
);
export type CreateKeyRequest = z.input<typeof createKeyRequest>;

/** With hashData the server returns no keyId/keySecret (it only has hashes). */
export const createKeyResult = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    key: keyRecord,
    keyId: z.optional(z.string()),
    keySecret: z.optional(z.string()),
  }),
);
export type CreateKeyResult = z.infer<typeof createKeyResult>;

export const updateKeyRequest = /* @__PURE__ */ z.lazy(() =>
  z.object({
    name: z.optional(z.string().check(z.minLength(1))),
    expireAt: z.optional(z.nullable(isoDateTime)),
    state: z.optional(keyState),
    roles: z.optional(keyRoles),
    assignedRoleIds: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
    ipAccessList: z.optional(z.array(ipAccessEntry)),
  }),
);
export type UpdateKeyRequest = z.input<typeof updateKeyRequest>;
