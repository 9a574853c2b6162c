import * as z from 'zod/mini';
import { parseSecret } from '../credentials';
import { managementKeySecret, type ManagementKeySecret } from '../schemas';
import { isoDateTime } from '../schemas/common';
import type { KeyMaterial } from './material';

/**
 * A version the rotator wrote: the management-key shape plus the name its key gets, and always
 * an expiry. keyRecordId is absent (the key does not exist yet when the value is stored).
 */
const rotatedKeySecret = z.lazy(() =>
  z.extend(managementKeySecret, {
    keyName: z.string().check(z.minLength(1)),
    expireAt: isoDateTime,
  }),
);
export type RotatedKeySecret = z.infer<typeof rotatedKeySecret>;

export const parseCurrent = (secretId: string, text: string | undefined): ManagementKeySecret =>
  parseSecret(`${secretId} (AWSCURRENT)`, text, managementKeySecret);

export const parsePending = (secretId: string, text: string | undefined): RotatedKeySecret =>
  parseSecret(`${secretId} (AWSPENDING)`, text, rotatedKeySecret);

/** Same shape as the current value, with the new key's fields; the old record id is dropped. */
export function nextSecretValue(
  current: ManagementKeySecret,
  material: KeyMaterial,
  keyName: string,
  expireAt: string,
): RotatedKeySecret {
  const { keyRecordId: _oldRecord, ...rest } = current;
  return { ...rest, keyId: material.keyId, keySecret: material.keySecret, keyName, expireAt };
}
