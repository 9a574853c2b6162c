import fc from 'fast-check';
import * as jsYaml from 'js-yaml';
import { CORE_SCHEMA, dump, load } from 'js-yaml';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isNode, LineCounter, parse, parseDocument, stringify } from 'yaml';
import { lazyLocator } from '../../../lib/dashboards/locate';

/** Where the `yaml` library, which keeps every node's range, puts the node at `path`. */
function yamlPosition(text: string, path: readonly PropertyKey[]) {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const node: unknown = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (!isNode(node) || !node.range) throw new Error(`no node at ${JSON.stringify(path)}`);
  const pos = lineCounter.linePos(node.range[0]);
  return { line: pos.line, column: pos.col };
}

/** True when both parsers read the text, and read it alike (js-yaml takes `0_0` for 0). */
function readAlike(text: string): boolean {
  try {
    return isDeepStrictEqual(load(text, { schema: CORE_SCHEMA }), parse(text));
  } catch {
    return false; // js-yaml's dump can emit YAML it cannot read back
  }
}

function pathsOf(value: unknown, prefix: PropertyKey[] = []): PropertyKey[][] {
  const children = Array.isArray(value)
    ? value.map((v, i) => pathsOf(v, [...prefix, i]))
    : value !== null && typeof value === 'object'
      ? Object.entries(value).map(([k, v]) => pathsOf(v, [...prefix, k]))
      : [];
  return [prefix, ...children.flat()];
}

const key = fc.string({ minLength: 1, maxLength: 6 });
const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const { node } = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(key, tie('node'), { maxKeys: 3 }),
  ),
}));
const document = fc.dictionary(key, node, { minKeys: 1, maxKeys: 4 });

describe('locating a field path in a YAML or JSON text (js-yaml only)', () => {
  it('puts every node where the `yaml` library puts it, in block, flow and JSON layouts', () => {
    fc.assert(
      fc.property(document, fc.integer({ min: -1, max: 2 }), (value, flowLevel) => {
        for (const text of [
          stringify(value),
          dump(value, { flowLevel }),
          JSON.stringify(value, null, 2),
          JSON.stringify(value),
        ]) {
          if (!readAlike(text)) continue;
          const locate = lazyLocator(text, jsYaml);
          for (const path of pathsOf(value)) {
            expect(locate(path), `${JSON.stringify(path)} in\n${text}`).toEqual(
              yamlPosition(text, path),
            );
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('points a missing field at its parent, a key without a value at the key', () => {
    const text = 'name:\ntiles:\n  - x: 0\n    series: !!seq # note\n      - &s { type: time }\n';
    const locate = lazyLocator(text, jsYaml);
    expect(locate(['name'])).toEqual({ line: 1, column: 1 });
    expect(locate(['tiles', 0, 'name'])).toEqual({ line: 3, column: 5 });
    expect(locate(['tiles', 0, 'series'])).toEqual({ line: 5, column: 7 });
    expect(locate(['tiles', 0, 'series', 0])).toEqual({ line: 5, column: 12 });
    expect(locate(['tiles', 0, 'series', 0, 'type'])).toEqual({ line: 5, column: 20 });
    expect(locate(['tiles', 3])).toEqual({ line: 3, column: 3 });
  });

  it('keeps later items in place after an empty `-` item', () => {
    const locate = lazyLocator('tags:\n  -\n  - b\n', jsYaml);
    expect(locate(['tags', 1])).toEqual({ line: 3, column: 5 });
    expect(locate(['tags', 0])).toEqual({ line: 2, column: 3 });
  });

  it('gives no position for a text it cannot read, instead of throwing', () => {
    expect(lazyLocator('a: [\n', jsYaml)(['a'])).toEqual({});
  });
});
