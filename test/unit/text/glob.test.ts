/** The one name-glob matcher the watchdog's pipe lists and the notice routes share. */
import { describe, expect, it } from 'vitest';
import { globMatches, isGlob } from '../../../lib/text/glob';

describe('globMatches', () => {
  // [glob, name, matches]: `*` any run, `?` one character, the rest literal, the whole name.
  const cases: [string, string, boolean][] = [
    ['orders-*', 'orders-kafka', true],
    ['orders-*', 'orders-', true],
    ['orders-?', 'orders-12', false],
    ['a.b', 'axb', false],
    ['(x)+[y]', '(x)+[y]', true],
    ['kafka', 'orders-kafka', false],
  ];
  it.each(cases)('%s against %s: %s', (glob, name, matches) => {
    expect(globMatches(glob, name)).toBe(matches);
  });

  it('the same answer on every call (a cached pattern keeps no match state)', () => {
    for (let i = 0; i < 3; i++) expect(globMatches('*-kafka', 'orders-kafka')).toBe(true);
    expect(isGlob('orders-*')).toBe(true);
    expect(isGlob('orders')).toBe(false);
  });
});
