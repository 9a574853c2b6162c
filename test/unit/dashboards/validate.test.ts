import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DashboardFilesError, directorySource, loadDashboards } from '../../../lib/dashboards/load';
import { deriveKey, formatFileIssue, validateFiles } from '../../../lib/dashboards/validate';
import { dashboardFileJsonSchema } from '../../../lib/dashboards/json-schema';

const lines = async (files: { file: string; text: string }[], vars = {}) =>
  (await validateFiles(files, { vars })).issues.map(formatFileIssue);

const good = `name: Checkout
tags: [team-a]
tiles:
  - name: errors
    x: 0
    y: 0
    w: 12
    h: 4
    series:
      - { type: time, dataSource: events, aggFn: count, where: "level:error", groupBy: [service] }
    alerts:
      - name: too many errors
        threshold: 10
        thresholdType: above
        interval: 5m
        channel: { type: webhook, webhookId: "\${WEBHOOK_ID}" }
  - name: latency
    x: 12
    y: 0
    w: 12
    h: 4
`;

describe('validateFiles', () => {
  it('accepts a good file, applies defaults and substitutes variables', async () => {
    const { dashboards, issues } = await validateFiles(
      [{ file: 'team/checkout.yaml', text: good }],
      {
        vars: { WEBHOOK_ID: 'wh-1' },
      },
    );
    expect(issues).toEqual([]);
    expect(dashboards).toHaveLength(1);
    const d = dashboards[0];
    expect(d.key).toBe('team/checkout');
    expect(d.tiles[1]).toMatchObject({ name: 'latency', asRatio: false, series: [], alerts: [] });
    expect(d.tiles[0].alerts[0].channel).toEqual({ type: 'webhook', webhookId: 'wh-1' });
  });

  it('reports every error of several bad files at once, each with file:line and field path', async () => {
    const bad1 = [
      'name: A', //                           1
      'tags: [cloudops, x, x]', //            2
      'tiles:', //                            3
      '  - name: t1', //                      4
      '    x: 20', //                         5
      '    y: 0', //                          6
      '    w: 6', //                          7
      '    h: 2', //                          8
      '    bogus: 1', //                      9
      '  - name: t1', //                      10
      '    x: 22', //                         11
      '    y: 1', //                          12
      '    w: 2', //                          13
      '    h: 0', //                          14
      '    series:', //                       15
      '      - type: time', //                16
      '        aggFn: median', //             17
      '      - type: number', //              18
      '    alerts:', //                       19
      '      - name: hi', //                  20
      '        threshold: "3"', //            21
      '        thresholdType: over', //       22
      '        interval: 2m', //              23
      '        channel: { type: webhook }', // 24
    ].join('\n');
    const out = await lines([
      { file: 'a.yaml', text: bad1 },
      {
        file: 'b.json',
        text: '{\n  "name": "B",\n  "tiles": [\n    {"name": "x", "x": 0, "y": 0, "w": 1, "h": 1},\n  ]\n}',
      },
      { file: 'c.yaml', text: 'name: C\ntiles:\n  - name: [oops\n' },
      { file: 'd.yml', text: 'key: a\nname: D\n' },
      {
        file: 'e.json',
        text: '{"name": "E",\n "tiles": [{"name": "q", "x": -1, "y": 0, "w": 25, "h": 1}]}',
      },
      {
        file: 'f.yaml',
        text: 'name: F\ntiles:\n  - {name: a, x: 0, y: 0, w: 6, h: 4}\n  - {name: b, x: 4, y: 2, w: 6, h: 4}\n',
      },
    ]);
    expect(out).toEqual([
      'a.yaml:2:8 tags[0]: "cloudops" is reserved for the cloudops ownership marker',
      'a.yaml:2:21 tags[2]: duplicate tag "x"',
      'a.yaml:7:8 tiles[0].w: x + w must be <= 24 (x 20 + w 6 = 26)',
      'a.yaml:9:12 tiles[0].bogus: unknown field',
      'a.yaml:10:11 tiles[1].name: duplicate tile name "t1" (also tiles[0])',
      'a.yaml:14:8 tiles[1].h: Too small: expected number to be >=1',
      'a.yaml:16:7 tiles[1].series: all series of one tile must share a type (found time, number)',
      expect.stringMatching(
        /^a\.yaml:17:16 tiles\[1\]\.series\[0\]\.aggFn: Invalid option: expected one of "avg"/,
      ),
      'a.yaml:21:20 tiles[1].alerts[0].threshold: Invalid input: expected number, received string',
      expect.stringMatching(
        /^a\.yaml:22:24 tiles\[1\]\.alerts\[0\]\.thresholdType: Invalid option: expected one of "above"\|"below"\|"above_exclusive"/,
      ),
      expect.stringMatching(/^a\.yaml:23:19 tiles\[1\]\.alerts\[0\]\.interval: Invalid option/),
      'a.yaml:24:18 tiles[1].alerts[0].channel.webhookId: webhookId (or webhook: <name>) is required when type is webhook',
      'b.json:5:3 JSON syntax: trailing comma in array',
      expect.stringMatching(/^c\.yaml:4:1 YAML syntax: /),
      'd.yml:1:6 key: duplicate key "a": also used by a.yaml',
      'e.json:2:31 tiles[0].x: Too small: expected number to be >=0',
      'e.json:2:48 tiles[0].w: Too big: expected number to be <=24',
      'f.yaml:4:5 tiles[1]: tile "b" overlaps tile "a" (tiles[0])',
    ]);
  });

  it('names a missing field at its parent and an undefined variable at its value', async () => {
    expect(
      await lines([
        {
          file: 'x.yaml',
          text: 'tags: []\ntiles:\n  - x: 0\n    y: 0\n    w: 1\n    h: 1\n    series:\n      - type: time\n        where: "${NOPE}"\n',
        },
      ]),
    ).toEqual([
      'x.yaml:1:1 name: required',
      'x.yaml:3:5 tiles[0].name: required',
      'x.yaml:9:16 tiles[0].series[0].where: ${NOPE} is not defined (pass it as a variable)',
    ]);
  });

  it('flags a JSON duplicate key and an invalid derived key', async () => {
    expect(await lines([{ file: 'dup.json', text: '{"name": "a",\n "name": "b"}' }])).toEqual([
      'dup.json:2:2 duplicate key in object',
    ]);
    expect(await lines([{ file: 'my dash.yaml', text: 'name: a\n' }])).toEqual([
      'my dash.yaml:1:1 the file path gives the key "my dash", which is not a valid key: set `key:` in the file',
    ]);
  });

  it('derives keys from the relative path and keeps `$${` literal', async () => {
    expect(deriveKey('team/a.yml')).toBe('team/a');
    expect(deriveKey('b.JSON')).toBe('b');
    const { dashboards } = await validateFiles([{ file: 'x.yaml', text: 'name: "cost $${X}"\n' }]);
    expect(dashboards[0].name).toBe('cost ${X}');
  });

  it('exports a JSON Schema with the grid bounds and the known enums', () => {
    const schema = JSON.stringify(dashboardFileJsonSchema());
    expect(schema).toContain('"maximum":23');
    expect(schema).toContain('count_distinct');
    expect(schema).toContain('"additionalProperties":false');
  });
});

describe('loadDashboards', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads a directory tree, skipping README and dot-files, and throws every problem at once', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dash-'));
    await mkdir(path.join(dir, 'team'));
    await mkdir(path.join(dir, '.hidden'));
    await writeFile(path.join(dir, 'README.md'), '# not a dashboard');
    await writeFile(path.join(dir, '.hidden', 'x.yaml'), 'not: valid: yaml: [');
    await writeFile(path.join(dir, 'team', 'a.yaml'), 'name: A\n');
    await writeFile(path.join(dir, 'b.json'), '{"name": "B"}');
    const loaded = await loadDashboards(directorySource(dir));
    expect(loaded.map((d) => d.key)).toEqual(['b', 'team/a']);

    await writeFile(path.join(dir, 'c.yaml'), 'name: 3\n');
    await writeFile(path.join(dir, 'd.yaml'), 'nme: D\n');
    const error = await loadDashboards(directorySource(dir)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DashboardFilesError);
    expect((error as DashboardFilesError).issues).toEqual([
      'c.yaml:1:7 name: Invalid input: expected string, received number',
      'd.yaml:1:1 name: required',
      'd.yaml:1:6 nme: unknown field',
    ]);
  });

  it('for one service (the sync function): files listing other services are left out', async () => {
    const [a, b] = ['0b6f0d37-5a0e-4c3e-9f1e-3a2b1c0d9e8f', '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f'];
    dir = await mkdtemp(path.join(tmpdir(), 'dash-'));
    await writeFile(path.join(dir, 'both.yaml'), `name: Both\nservices: [${a}, ${b}]\n`);
    await writeFile(path.join(dir, 'only-b.yaml'), `name: B\nservices: [${b}]\n`);
    await writeFile(path.join(dir, 'plain.yaml'), 'name: Plain\n');
    const keys = async (service?: string) =>
      (await loadDashboards(directorySource(dir!), service ? { service } : {})).map((d) => d.key);
    expect(await keys(a)).toEqual(['both', 'plain']);
    expect(await keys(b)).toEqual(['both', 'only-b', 'plain']);
    expect(await keys()).toEqual(['both', 'only-b', 'plain']);
  });

  it('refuses an empty or missing directory', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dash-'));
    await expect(loadDashboards(directorySource(dir))).rejects.toThrow(/no dashboard files/);
    await expect(loadDashboards(directorySource(path.join(dir, 'nope')))).rejects.toThrow(
      /not found/,
    );
  });
});

describe('dashboard filters', () => {
  it('take their source by name or id, one of them, and at most 20 other source ids', async () => {
    const file = (filter: string) =>
      lines([{ file: 'f.yaml', text: `name: F\nfilters:\n  - ${filter}\n` }]);
    expect(await file('{ name: Service, expression: ServiceName, source: Logs }')).toEqual([]);
    expect(
      await file(
        '{ name: S, expression: e, sourceId: 0123456789abcdef01234567, appliesToSourceIds: [0123456789abcdef01234568] }',
      ),
    ).toEqual([]);
    expect(await file('{ name: S, expression: e }')).toEqual([
      'f.yaml:3:5 filters[0]: sourceId (or source: <name>) is required',
    ]);
    expect(
      await file('{ name: S, expression: e, source: Logs, sourceId: 0123456789abcdef01234567 }'),
    ).toEqual(['f.yaml:3:39 filters[0].source: give sourceId or source (a name), not both']);
    expect(
      await file('{ name: S, expression: e, source: Logs, appliesToSourceIds: [logs] }'),
    ).toEqual(['f.yaml:3:66 filters[0].appliesToSourceIds[0]: expected a 24-hex-character id']);
  });
});
