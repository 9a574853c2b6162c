import { describe, expect, it } from 'vitest';
import { compareWithRatchet } from './ratchet';
import { KNOWN_OVERSIZED } from './known-violations';
import { MAX_HANDLER_FILE_LINES, MAX_LIB_FUNCTION_LINES, oversizedPieces } from './sizes';
import { readSourceTree } from './source-tree';

describe(`small pieces: handler files ≤ ${MAX_HANDLER_FILE_LINES} lines, lib functions ≤ ${MAX_LIB_FUNCTION_LINES}`, () => {
  const found = oversizedPieces(readSourceTree(['lib', 'functions']));
  const report = compareWithRatchet(
    found.map((o) => o.piece),
    KNOWN_OVERSIZED,
  );

  it('finds nothing over its limit outside the ratchet list', () => {
    const unexpected = found
      .filter((o) => report.unexpected.includes(o.piece))
      .map((o) => `${o.piece}: ${o.lines} lines (limit ${o.limit})`);
    expect(unexpected).toEqual([]);
  });

  it('finds every listed piece still over its limit (delete the lines of the fixed ones)', () => {
    expect(report.fixed).toEqual([]);
  });
});
