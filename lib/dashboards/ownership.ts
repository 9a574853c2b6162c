/**
 * Ownership marker. Dashboards have no annotations, only tags (≤ 50 of ≤ 32 chars), so
 * cloudops writes two tags: `cloudops` (a human-visible "managed by" flag, also handy as a
 * filter in the UI) and `cloudops:<20 hex of sha256(key)>` (the identity). Only the second
 * one decides ownership: a hand-made dashboard that merely carries `cloudops` is not owned.
 * The hash is not reversible, which is fine: pruning only needs "owned, and no file has this key".
 */
import { createHash } from 'node:crypto';

export const MANAGED_TAG = 'cloudops';
const IDENTITY_PREFIX = 'cloudops:';
const IDENTITY_TAG = /^cloudops:[0-9a-f]{20}$/;
export const MARKER_TAG_COUNT = 2;

/** `cloudops:` + 20 hex chars = 29 chars (80 bits: collisions are not a practical concern). */
export function identityTag(key: string): string {
  return IDENTITY_PREFIX + createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 20);
}

export function markerTags(key: string): string[] {
  return [MANAGED_TAG, identityTag(key)];
}

/** Tags a user may not write themselves: they would forge or break ownership. */
export function isReservedTag(tag: string): boolean {
  return tag === MANAGED_TAG || tag.startsWith(IDENTITY_PREFIX);
}

/** The identity tag of an owned dashboard, or undefined for one cloudops does not own. */
export function ownerTag(tags: readonly string[]): string | undefined {
  return tags.find((tag) => IDENTITY_TAG.test(tag));
}

/** Desired tags as written: the user's tags plus the marker, deduplicated and sorted. */
export function withMarker(userTags: readonly string[], key: string): string[] {
  return [...new Set([...userTags, ...markerTags(key)])].sort();
}
