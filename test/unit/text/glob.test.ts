/** The one name-glob matcher the watchdog's pipe lists and the notice routes share. */
import { describe, expect, it } from 'vitest';
import { pipeMatcher } from '../../../lib/pipes/patterns';
import { globMatches, isGlob } from '../../../lib/text/glob';

describe('globMatches', () => {
  it('`*` is any run, `?` one character, the rest literal (a dot is a dot)', () => {
    expect(globMatches('orders-*', 'orders-kafka')).toBe(true);
    expect(globMatches('orders-*', 'orders-')).toBe(true);
    expect(globMatches('orders-?', 'orders-12')).toBe(false);
    expect(globMatches('a.b', 'axb')).toBe(false);
    expect(globMatches('(x)+[y]', '(x)+[y]')).toBe(true);
    // The whole name: a glob is not a substring search.
    expect(globMatches('kafka', 'orders-kafka')).toBe(false);
  });

  it('the same answers on every call (a cached pattern keeps no match state between calls)', () => {
    for (let i = 0; i < 3; i++) expect(globMatches('*-kafka', 'orders-kafka')).toBe(true);
  });

  it('pipe lists: exact ids and names, globs on names only', () => {
    expect(isGlob('orders-*')).toBe(true);
    const matches = pipeMatcher(['p-1', 'users-*']);
    expect(matches({ pipeId: 'p-1', pipeName: 'x' })).toBe(true);
    expect(matches({ pipeId: 'p-2', pipeName: 'users-cdc' })).toBe(true);
    expect(matches({ pipeId: 'users-9', pipeName: 'other' })).toBe(false);
  });
});
