/**
 * The vendored loader (lib/dashboards/vendor: js-yaml's loader without its dumper and YAML 1.1
 * types) reads every text as the js-yaml package does with the core schema, the one the files
 * are read with: the same values, the same errors at the same positions, the same node events
 * (what locate.ts finds positions from). YAML 1.1 syntax is read alike too (a plain string or the
 * same unknown-tag error), so leaving those types out changes nothing a file can say.
 */
import fc from 'fast-check';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as jsYaml from 'js-yaml';
import * as vendored from '../../../lib/dashboards/vendor/js-yaml-loader.mjs';

type Loader = Pick<typeof jsYaml, 'load' | 'CORE_SCHEMA' | 'YAMLException'>;

/** What a loader makes of a text: its value, or its error's reason, position and message. */
function outcome(loader: Loader, text: string, json = false) {
  try {
    return { value: loader.load(text, { schema: loader.CORE_SCHEMA, filename: 'f.yaml', json }) };
  } catch (error) {
    if (!(error instanceof loader.YAMLException)) return { other: String(error) };
    const { reason, mark, message } = error;
    return { reason, line: mark?.line, column: mark?.column, message };
  }
}

/** The open/close events a loader's listener sees (position, kind, value). */
function events(loader: Loader, text: string) {
  const seen: unknown[] = [];
  try {
    loader.load(text, {
      schema: loader.CORE_SCHEMA,
      json: true,
      listener: (event, state) => seen.push([event, state.position, state.kind, state.result]),
    });
  } catch {
    seen.push('threw');
  }
  return seen;
}

const alike = (text: string) => {
  expect(outcome(vendored, text)).toEqual(outcome(jsYaml, text));
  expect(outcome(vendored, text, true)).toEqual(outcome(jsYaml, text, true));
  expect(events(vendored, text)).toEqual(events(jsYaml, text));
};

async function exampleTexts(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries
    .filter((e) => e.isFile() && /\.(ya?ml|json)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
  return Promise.all(files.map((f) => readFile(f, 'utf8')));
}

describe("the vendored YAML loader reads as js-yaml's own (core schema)", () => {
  it('the example dashboard files', async () => {
    const texts = await exampleTexts(path.join(import.meta.dirname, '../../../dashboards'));
    expect(texts.length).toBeGreaterThanOrEqual(4);
    for (const text of texts) alike(text);
  });

  it('YAML 1.1 types the core schema does not know: the same strings or the same errors', () => {
    for (const text of [
      'at: 2026-01-02T03:04:05Z\nday: 2026-01-02\n',
      'base: &b { x: 1 }\nboard:\n  <<: *b\n  y: 2\n',
      'data: !!binary aGVsbG8=\n',
      'set: !!set { a, b }\n',
      'pairs: !!pairs [ { a: 1 } ]\n',
      'omap: !!omap [ { a: 1 } ]\n',
      'merge: !!merge { a: 1 }\n',
      'stamp: !!timestamp 2026-01-02\n',
      'n: !!int "12"\nf: !!float 1.5\ns: !!str 3\nyes: yes\noct: 0o17\nhex: 0x1F\n',
    ])
      alike(text);
  });

  it('errors: the same reason, line, column and message', () => {
    for (const text of [
      'name: [broken',
      'a: 1\na: 2\n',
      'a:\n\t- tab\n',
      'a: "unterminated\n',
      'a: *nowhere\n',
      'a: 1\n---\nb: 2\n',
      'tiles:\n  - name: a\n   x: 1\n',
      '%YAML 2.0\n---\na: 1\n',
      'a: !unknown 1\n',
      'key: value: other\n',
      '{ "a": 1, "a": 2 }',
      'bad: \u0000',
    ])
      alike(text);
  });

  it('any document the package writes, in block, flow and JSON layouts', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.integer({ min: -1, max: 2 }),
        (value, flowLevel) => {
          for (const text of [
            jsYaml.dump(value, { flowLevel }),
            JSON.stringify(value, null, 2),
            JSON.stringify(value),
          ])
            alike(text);
        },
      ),
      { numRuns: 300 },
    );
  });
});
