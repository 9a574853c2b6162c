/** "Did you mean …?" for a mistyped command, subcommand or flag. */

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2][j - 2] + 1);
      rows[i][j] = best;
    }
  }
  return rows[a.length][b.length];
}

/**
 * The candidate `word` most likely meant: the nearest by edit distance when it is close for its
 * length (a third of the letters, at least 2), else the only candidate it abbreviates.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  if (best) return best.candidate;
  const abbreviated = candidates.filter((c) => word.length >= 2 && c.startsWith(word));
  return abbreviated.length === 1 ? abbreviated[0] : undefined;
}

/** ` (did you mean "plan"?)`, or nothing when no candidate is close. */
export function didYouMean(
  word: string,
  candidates: readonly string[],
  quote = (s: string) => `"${s}"`,
): string {
  const match = closest(word, candidates);
  return match === undefined ? '' : ` (did you mean ${quote(match)}?)`;
}
