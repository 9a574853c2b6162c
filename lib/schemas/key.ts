import * as z from 'zod';
import { expiry, isoDateTime, uuid } from './common';

export const keyRole = z.enum(['admin', 'developer', 'query_endpoints']);
export type KeyRole = z.infer<typeof keyRole>;
export const keyRoles = z.array(keyRole).min(1, 'a key carries at least 1 role');

export const keyState = z.enum(['enabled', 'disabled']);
export type KeyState = z.infer<typeof keyState>;

export const ipAccessEntry = z.looseObject({
  source: z.string().min(1),
  description: z.string().optional(),
});
export type IpAccessEntry = z.infer<typeof ipAccessEntry>;

/** The current service's role assignment (`roles` is deprecated; custom roles exist). */
export const assignedRole = z.looseObject({
  roleId: z.string().min(1),
  roleName: z.string().nullish(),
  roleType: z.string().nullish(),
});

/** Key record: `id` is the record UUID for `/keys/{id}` paths, NOT the Basic-auth key ID. */
export const keyRecord = z.looseObject({
  id: uuid,
  name: z.string(),
  /** Deprecated and absent on some records; custom-role organizations may hold any name. */
  roles: z.array(z.string()).nullish(),
  assignedRoles: z.array(assignedRole).nullish(),
  keySuffix: z.string(),
  createdAt: isoDateTime.optional(),
  expireAt: expiry,
  usedAt: isoDateTime.nullable().optional(),
  ipAccessList: z.array(ipAccessEntry).optional(),
  /** Present on the real record though the spec omits it. */
  state: keyState.optional(),
});
export type KeyRecord = z.infer<typeof keyRecord>;

/** SHA-256 hashes (base64 of the raw digest) that let the caller choose the key material. */
export const hashData = z.object({
  keyIdHash: z.string().min(1),
  keyIdSuffix: z.string().min(1),
  keySecretHash: z.string().min(1),
});
export type HashData = z.infer<typeof hashData>;

export const createKeyRequest = z.object({
  name: z.string().min(1),
  expireAt: isoDateTime.nullable().optional(),
  state: keyState.optional(),
  hashData: hashData.optional(),
  roles: keyRoles.optional(),
  /** The current service's way to give a key its roles (role UUIDs). */
  assignedRoleIds: z.array(z.string().min(1)).min(1).optional(),
  ipAccessList: z.array(ipAccessEntry).optional(),
});
export type CreateKeyRequest = z.input<typeof createKeyRequest>;

/** With hashData the server returns no keyId/keySecret (it only has hashes). */
export const createKeyResult = z.looseObject({
  key: keyRecord,
  keyId: z.string().optional(),
  keySecret: z.string().optional(),
});
export type CreateKeyResult = z.infer<typeof createKeyResult>;

export const updateKeyRequest = z.object({
  name: z.string().min(1).optional(),
  expireAt: isoDateTime.nullable().optional(),
  state: keyState.optional(),
  roles: keyRoles.optional(),
  assignedRoleIds: z.array(z.string().min(1)).min(1).optional(),
  ipAccessList: z.array(ipAccessEntry).optional(),
});
export type UpdateKeyRequest = z.input<typeof updateKeyRequest>;
