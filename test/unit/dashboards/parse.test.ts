import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { directorySource, loadDashboards } from '../../../lib/dashboards/load';
import { FILE_LIMITS, parseFile, substituteVars } from '../../../lib/dashboards/parse';
import { formatFileIssue, validateFiles } from '../../../lib/dashboards/validate';

const lines = async (file: string, text: string, vars = {}) =>
  (await validateFiles([{ file, text }], { vars })).issues.map(formatFileIssue);

const billionLaughs = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((c, i) => {
    const prev = 'abcdefghi'[i];
    return `${c}: &${c} [${Array(9).fill(`*${prev}`).join(',')}]`;
  }),
  'name: *i',
].join('\n');

describe('file limits: one line naming the file, never a stack trace', () => {
  it('refuses a billion-laughs YAML file without expanding it', async () => {
    const started = process.hrtime.bigint();
    expect(await lines('lol.yaml', billionLaughs)).toEqual([
      'lol.yaml aliases expand this file to more than the 4 MiB limit',
    ]);
    // Expanding it would take minutes and gigabytes; refusing it takes well under a second.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5000);
  });

  it('refuses a file under 1 MiB whose aliases expand past 4 MiB, and accepts a small alias use', async () => {
    const chunk = 'x'.repeat(600 * 1024);
    const text = `big: &big "${chunk}"\ncopies: [${Array(8).fill('*big').join(', ')}]\nname: n\n`;
    expect(Buffer.byteLength(text)).toBeLessThan(FILE_LIMITS.maxFileBytes);
    expect(await lines('alias.yaml', text)).toEqual([
      'alias.yaml aliases expand this file to more than the 4 MiB limit',
    ]);
    const ok = 'name: &n Shared\ntags: [*n]\n';
    expect((await parseFile({ file: 'ok.yaml', text: ok })).issues).toEqual([]);
  });

  it('refuses a 4 MiB file by its size (and a directory source never reads it)', async () => {
    const text = `name: big\n# ${'y'.repeat(4 * 1024 * 1024)}\n`;
    expect(await lines('huge.yaml', text)).toEqual([
      'huge.yaml file is 4.0 MiB, over the 1 MiB limit',
    ]);
    const dir = await mkdtemp(path.join(tmpdir(), 'dash-limits-'));
    try {
      await writeFile(path.join(dir, 'huge.yaml'), text);
      const source = directorySource(dir);
      const read = source.read.bind(source);
      const reads: string[] = [];
      source.read = (file) => (reads.push(file), read(file));
      const error = (await loadDashboards(source).catch((e: unknown) => e)) as Error;
      expect(error.message).toContain('huge.yaml file is 4.0 MiB, over the 1 MiB limit');
      expect(reads).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses deeply nested JSON and YAML at the depth limit, naming the line for JSON', async () => {
    const deep = `{"name": "d", "tiles": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(await lines('deep.json', deep)).toEqual([
      `deep.json:1:${23 + FILE_LIMITS.maxDepth} nesting deeper than 32 levels`,
    ]);
    expect(
      await lines('deep.yaml', `name: d\ntags: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`),
    ).toEqual(['deep.yaml nesting deeper than 32 levels']);
    expect(await lines('d33.yaml', `name: d\nx: ${'['.repeat(40)}${']'.repeat(40)}\n`)).toEqual([
      'd33.yaml nesting deeper than 32 levels',
    ]);
    // Exactly at the limit: the root map and 31 lists are 32 levels; one more is too deep.
    const nested = (n: number) => `name: d\nx: ${'['.repeat(n)}${']'.repeat(n)}\n`;
    expect((await parseFile({ file: 'd32.yaml', text: nested(31) })).issues).toEqual([]);
    expect(await lines('d33.yaml', nested(32))).toEqual(['d33.yaml nesting deeper than 32 levels']);
  });

  it('substitutes a shared (aliased) node once: an escaped $${ stays literal in every use', async () => {
    const parsed = await parseFile({ file: 'a.yaml', text: 'a: &a { w: "$${X} ${Y}" }\nb: *a\n' });
    expect(parsed.shared).toBe(true);
    const value = substituteVars(parsed.value, { X: 'x', Y: 'y' }, () => {}, parsed.shared) as {
      a: { w: string };
      b: { w: string };
    };
    expect(value.a.w).toBe('${X} y');
    expect(value.b.w).toBe('${X} y');
  });
});

describe('parsing', () => {
  it('parses JSON with JSON.parse semantics and reports syntax and duplicate keys by position', async () => {
    expect(
      (await parseFile({ file: 'a.json', text: '{"name": "A", "tags": ["x"]}' })).value,
    ).toEqual({
      name: 'A',
      tags: ['x'],
    });
    expect(await lines('b.json', '{"name": "B",\n "tags": [1,]}')).toEqual([
      'b.json:2:13 JSON syntax: trailing comma in array',
    ]);
    expect(await lines('c.json', '{"name": "a",\n "name": "b"}')).toEqual([
      'c.json:2:2 duplicate key in object',
    ]);
  });

  it('reads YAML with the core schema: dates stay strings, duplicate keys are errors', async () => {
    expect((await parseFile({ file: 'a.yaml', text: 'name: 2024-01-01\n' })).value).toEqual({
      name: '2024-01-01',
    });
    expect(await lines('dup.yaml', 'name: a\nname: b\n')).toEqual([
      expect.stringMatching(/^dup\.yaml:2:\d+ YAML syntax: duplicated mapping key/),
    ]);
  });

  it('substitutes ${VAR} into parsed values, inside flow maps too, without breaking the syntax', async () => {
    const text =
      'name: "${NAME}"\ntiles:\n  - { name: t, x: 0, y: 0, w: 6, h: 4, series: [{ type: time, where: "${W}" }],\n' +
      "      alerts: [{ name: a, threshold: 1, thresholdType: above, interval: 5m, channel: { type: webhook, webhookId: '${ID}' } }] }\n";
    const vars = { NAME: 'quote " and } brace', W: "level:'error'}", ID: 'w-1' };
    const { dashboards, issues } = await validateFiles([{ file: 'v.yaml', text }], { vars });
    expect(issues).toEqual([]);
    expect(dashboards[0].name).toBe('quote " and } brace');
    expect(dashboards[0].tiles[0].series[0].where).toBe("level:'error'}");
    expect(dashboards[0].tiles[0].alerts[0].channel.webhookId).toBe('w-1');
    // Unquoted in a flow map, `{` starts a map: a YAML error on one line, not a crash.
    expect(await lines('u.yaml', 'name: x\nc: { id: ${ID} }\n', vars)).toEqual([
      expect.stringMatching(/^u\.yaml:2:\d+ YAML syntax: /),
    ]);
  });
});
