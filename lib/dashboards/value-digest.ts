/**
 * The one home of the digests that stand for webhook values (URL, headers, query parameters)
 * where a value may not go.
 *
 * - The marker's digest (writeOnlyDigest) lives on the service: a short sha256 salted with the
 *   file's key, recomputed on every plan, so it must stay cheap and stable.
 * - A saved plan's digest (planValueDigest) lives in a file that travels (a CI artifact): a
 *   guess at a short value must not be cheap to confirm from it. So it is scrypt (memory-hard,
 *   about 16 MiB and tens of ms per guess) salted with 32 random bytes per plan and the value's
 *   place, so equal values in two places or two plans give unrelated digests.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { createHash } from 'node:crypto';
import { stableStringify } from '../diff';

/** A digest of a write-only map; undefined for none (or an empty map, which clears it). */
export function writeOnlyDigest(
  key: string,
  values: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (!values || Object.keys(values).length === 0) return undefined;
  const canonical = stableStringify(values);
  return createHash('sha256').update(`${key}\0${canonical}`).digest('hex').slice(0, 16);
}

/** A saved plan's salt: fresh for every plan. */
export function newPlanSalt(): string {
  return randomBytes(32).toString('base64url');
}

const SCRYPT = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** The digest a saved plan keeps of one value, at one place (`webhook key`, `headers.X`). */
export function planValueDigest(salt: string, place: string, value: string): string {
  return scryptSync(value, `${salt}\0${place}`, 32, SCRYPT).toString('base64url');
}

/** Whether `value` is the one a saved digest stands for (compared in constant time). */
export function matchesPlanDigest(
  digest: string,
  salt: string,
  place: string,
  value: string,
): boolean {
  const want = Buffer.from(digest, 'base64url');
  const have = Buffer.from(planValueDigest(salt, place, value), 'base64url');
  return want.length === have.length && timingSafeEqual(want, have);
}
