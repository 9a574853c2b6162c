/**
 * A ratchet list: known violations that may only go away. A check fails on a violation not in the
 * list (fix it, never list it) and on a listed one that no longer occurs (delete its line).
 */
export interface RatchetReport {
  /** Found and not listed: new violations, to fix (never to add to the list). */
  readonly unexpected: string[];
  /** Listed and no longer found: fixed, so their lines must leave the list. */
  readonly fixed: string[];
}

/** Compares what was found with a ratchet list that may only shrink. */
export function compareWithRatchet(
  found: readonly string[],
  known: readonly string[],
): RatchetReport {
  const listed = new Set(known);
  const present = new Set(found);
  return {
    unexpected: found.filter((line) => !listed.has(line)),
    fixed: known.filter((line) => !present.has(line)),
  };
}
