import { createHash } from 'node:crypto';
import type { KeyRecord } from '../schemas';
import { keySuffixOf } from './material';

/**
 * Keys this rotator made for one secret are named `<prefix><tag>-<timestamp>`. The tag is a
 * short hash of the secret's ARN, never of its name alone: two deployments (other accounts,
 * regions, or a redeploy after destroy) may use the same secret name in one organization, and
 * the ARN's account, region and creation suffix keep them from ever disabling, expiring or
 * deleting each other's keys.
 */
export function ownedNamePrefix(namePrefix: string, secretArn: string): string {
  const tag = createHash('sha256').update(secretArn, 'utf8').digest('hex').slice(0, 10);
  return `${namePrefix}${tag}-`;
}

/** `<prefix><tag>-20250101T120000.123Z`: sortable and readable in the console. */
export function keyNameFor(ownedPrefix: string, nowMs: number): string {
  return `${ownedPrefix}${new Date(nowMs).toISOString().replace(/[-:]/g, '')}`;
}

export const isOwned = (record: KeyRecord, ownedPrefix: string) =>
  record.name.startsWith(ownedPrefix);

/** Past its expiry at `nowMs`: unusable whatever its state, so safe to delete. */
export const isExpired = (record: KeyRecord, nowMs: number) =>
  record.expireAt !== null && Date.parse(record.expireAt) <= nowMs;

/** Enabled and not past its expiry at `nowMs` (what the service accepts). */
export const isUsable = (record: KeyRecord, nowMs: number) =>
  record.state !== 'disabled' && (record.expireAt === null || Date.parse(record.expireAt) > nowMs);

/**
 * The record of a key held in a secret. There is no "who am I" call, so, like the official
 * provider, match the key ID's suffix, narrowed by the key's name when the secret records it.
 * A `keyRecordId` counts only when its record carries that suffix too: a secret's word alone
 * never picks another key to cut, disable or copy.
 */
export function findKeyRecord(
  records: readonly KeyRecord[],
  secret: { keyId: string; keyRecordId?: string | undefined; keyName?: string | undefined },
): KeyRecord | undefined {
  const suffix = keySuffixOf(secret.keyId);
  if (secret.keyRecordId) {
    const named = records.find((record) => record.id === secret.keyRecordId);
    return named?.keySuffix === suffix ? named : undefined;
  }
  const matches = records.filter(
    (record) =>
      record.keySuffix === suffix &&
      (secret.keyName === undefined || record.name === secret.keyName),
  );
  // Two keys with the same suffix and no name to tell them apart: refuse to guess.
  return matches.length === 1 ? matches[0] : undefined;
}
