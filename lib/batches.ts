/**
 * Consecutive chunks of at most `maxEntries` items and `maxBytes` summed size (an item larger
 * than `maxBytes` goes alone: the receiver rejects that entry, not its neighbours).
 */
export function chunks<T>(
  items: readonly T[],
  maxEntries: number,
  maxBytes: number,
  size: (item: T) => number,
): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const n = size(item);
    if (current.length > 0 && (current.length >= maxEntries || bytes + n > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}
