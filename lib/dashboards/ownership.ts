/**
 * Ownership marker. Dashboards have no annotations, only tags (≤ 50 of ≤ 32 chars), so
 * cloudops writes:
 * - `cloudops`: a human-visible "managed by" flag (also a filter in the UI);
 * - `cloudops:<20 hex of sha256(key)>`: the identity; only this one decides "owned";
 * - `cloudops@<owner>`: the owner (one repo, stack or deployment). Absent means the default
 *   owner, so state written before owners existed belongs to the default owner unchanged;
 * - `cloudops:alerts`: the file declares alerts, so plan must read the alert list for it
 *   (a dashboard without it costs no alert request);
 * - `cloudops:k=<key>`: the key itself when it fits a tag (keys up to 21 characters), so `pull`
 *   writes the key back. Written with every create and update; a dashboard without it is no
 *   change (it was written before this tag existed).
 * The hash is not reversible, which is fine for pruning ("owned, and no file has this key");
 * a key too long for its tag is recovered by pull only from alert markers or local files.
 */
import { createHash } from 'node:crypto';

const MANAGED_TAG = 'cloudops';
export const ALERTS_TAG = 'cloudops:alerts';
const IDENTITY_PREFIX = 'cloudops:';
const OWNER_PREFIX = 'cloudops@';
const KEY_PREFIX = 'cloudops:k=';
/** The service's limit on one tag's length. */
const TAG_LENGTH_MAX = 32;
const IDENTITY_TAG = /^cloudops:[0-9a-f]{20}$/;
/** cloudops, identity, owner, alerts, key. */
export const MARKER_TAG_COUNT = 5;

/** The owner of dashboards written without `--owner` (and of all state from before owners). */
export const DEFAULT_OWNER = 'default';

/** Said when a run prunes as the default owner: every deployment left on it shares its dashboards. */
export const DEFAULT_OWNER_WARNING = `pruning as owner "${DEFAULT_OWNER}": every deployment and CLI user that sets no owner is this owner too, and each prunes the others' dashboards; give each its own owner (--owner, CLOUDOPS_DASHBOARDS_OWNER, cloudops:dashboardsOwner)`;
/** An owner id fits a tag: `cloudops@` + up to 23 characters. */
export const OWNER_ID = /^[A-Za-z0-9._-]{1,23}$/;

/** `cloudops:` + 20 hex chars = 29 chars (80 bits: collisions are not a practical concern). */
export function identityTag(key: string): string {
  return IDENTITY_PREFIX + createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 20);
}

export function markerTags(key: string, owner: string = DEFAULT_OWNER): string[] {
  const keyTag = KEY_PREFIX + key;
  return [
    MANAGED_TAG,
    identityTag(key),
    ...(owner === DEFAULT_OWNER ? [] : [OWNER_PREFIX + owner]),
    ...(keyTag.length <= TAG_LENGTH_MAX ? [keyTag] : []),
  ];
}

/** The tag that carries the key: informative only, so its absence alone is no change. */
export function isKeyTag(tag: string): boolean {
  return tag.startsWith(KEY_PREFIX);
}

/** The key an owned dashboard's key tag says (trust it only if it hashes to the identity tag). */
export function taggedKey(tags: readonly string[]): string | undefined {
  return tags.find(isKeyTag)?.slice(KEY_PREFIX.length);
}

/** Tags a user may not write themselves: they would forge or break ownership. */
export function isReservedTag(tag: string): boolean {
  return tag === MANAGED_TAG || tag.startsWith(IDENTITY_PREFIX) || tag.startsWith(OWNER_PREFIX);
}

/** The identity tag of an owned dashboard, or undefined for one cloudops does not own. */
export function ownerTag(tags: readonly string[]): string | undefined {
  return tags.find((tag) => IDENTITY_TAG.test(tag));
}

/** The owner recorded on an owned dashboard (the default owner when none is recorded). */
export function ownerOf(tags: readonly string[]): string {
  const tag = tags.find((t) => t.startsWith(OWNER_PREFIX));
  return tag ? tag.slice(OWNER_PREFIX.length) : DEFAULT_OWNER;
}

/** Desired tags as written: the user's tags plus the marker, deduplicated and sorted. */
export function withMarker(
  userTags: readonly string[],
  key: string,
  owner: string = DEFAULT_OWNER,
  hasAlerts = false,
): string[] {
  return [
    ...new Set([...userTags, ...markerTags(key, owner), ...(hasAlerts ? [ALERTS_TAG] : [])]),
  ].sort();
}
