/**
 * The rotator's decisions, pure (rotation.ts carries them out; the new key's roles are decided in
 * assignment.ts): which call proves it works, and which earlier keys a finished rotation tidies away.
 */
import type { KeyRecord } from '../schemas';
import type { TestCall } from './config';
import { isExpired, isUsable } from './ownership';

export type ResolvedTestCall = Exclude<TestCall, { kind: 'auto' }>;

/**
 * `auto` picks a call the key's roles allow: an admin key lists keys; any other key proves it
 * authenticates (a 403 on the key list still means the service accepted the credential).
 */
export function testCallFor(
  configured: TestCall,
  pending: { roles?: readonly string[] | undefined },
): ResolvedTestCall {
  if (configured.kind !== 'auto') return configured;
  return pending.roles?.includes('admin') ? { kind: 'list-keys' } : { kind: 'authenticate' };
}

/**
 * Expired rotator keys deleted per finishSecret: one in the steady state (the key two
 * rotations back), a backlog drains over a few rotations without making any one of them slow.
 */
const MAX_EXPIRED_DELETES = 3;

/**
 * The rotator's other keys after a rotation: a usable one is disabled (at most two stay usable);
 * expired ones are deleted, oldest first and at most MAX_EXPIRED_DELETES per run, so the
 * organization never creeps toward its 100-key limit.
 */
export function tidyPlan(
  others: readonly KeyRecord[],
  now: number,
): { remove: KeyRecord[]; disable: KeyRecord[] } {
  const expired = others
    .filter((r) => isExpired(r, now))
    .sort((a, b) => Date.parse(a.expireAt!) - Date.parse(b.expireAt!));
  return {
    remove: expired.slice(0, MAX_EXPIRED_DELETES),
    disable: others.filter((r) => isUsable(r, now)),
  };
}
