import { describe, expect, it } from 'vitest';
import { functionSizes, oversizedPieces } from './sizes';

const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');

describe('the size checker', () => {
  it('measures each function by name, a closure inside its parent too', () => {
    const text = [
      'export function outer() {',
      '  const inner = () => {',
      '    return 1;',
      '  };',
      '  return inner;',
      '}',
      'class Store {',
      '  load() {',
      '    return 2;',
      '  }',
      '}',
    ].join('\n');
    expect(functionSizes('lib/x.ts', text)).toEqual([
      { id: 'lib/x.ts#outer', lines: 6 },
      { id: 'lib/x.ts#inner', lines: 3 },
      { id: 'lib/x.ts#Store.load', lines: 3 },
    ]);
  });

  it('reports a lib function over 120 lines and a handler file over 80, nothing else', () => {
    const tree = new Map([
      ['lib/long.ts', `export function long() {\n${lines(119)}\n}\n`],
      ['lib/fits.ts', `export function fits() {\n${lines(118)}\n}\n`],
      ['functions/big/handler.ts', `${lines(81)}\n`],
      ['functions/big/wiring.ts', `${lines(200)}\n`],
      ['functions/small/handler.ts', `${lines(80)}\n`],
      ['cli/long.ts', `export function long() {\n${lines(200)}\n}\n`],
    ]);
    expect(oversizedPieces(tree)).toEqual([
      { piece: 'handler file functions/big/handler.ts', lines: 81, limit: 80 },
      { piece: 'lib function lib/long.ts#long', lines: 121, limit: 120 },
    ]);
  });
});
