/**
 * The service's dry-run validate at plan time, through the CLI against the sandbox's `current`
 * profile: a tile only the service refuses stops plan and apply with `file:line field: message`
 * and no write; unchanged dashboards cost no validation; `--no-remote-validate` asks nothing;
 * the August 2026 number-tile fields apply and then plan as unchanged.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';

let ds: DashboardsSandbox;
let dir: string;

beforeAll(async () => {
  ds = await startDashboardsSandbox('current');
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-remote-validate-'));
});
afterAll(async () => {
  await ds.sb.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => ds.sb.requestLog.clear());

const cli = (...argv: string[]) => ds.cli(...argv);
const api = () => ds.api();
const writes = () => ds.writes();
const validations = () => api().filter((e) => e.path.endsWith('/dashboards/validate'));

/** A number tile; `rules` is its colour-rule list as YAML flow text. */
const numberTile = (rules: string) =>
  [
    'name: Errors',
    'tiles:',
    '  - name: error count',
    '    x: 0',
    '    y: 0',
    '    w: 6',
    '    h: 3',
    '    config:',
    '      displayType: number',
    '      source: Logs',
    '      select: [{ aggFn: count, where: "level:error", whereLanguage: lucene }]',
    '      color: red',
    '      backgroundChart: { type: area }',
    `      colorRules: ${rules}`,
    '',
  ].join('\n');

describe('dashboards: the service validates what a plan writes, before any write', () => {
  it('a colour rule only the service refuses: plan and apply exit 1 naming file:line and field, 0 writes', async () => {
    await writeFile(
      path.join(dir, 'errors.yaml'),
      numberTile('[{ operator: regex, value: "5..", color: red }]'),
    );
    const plan = await cli('plan', '--dir', dir);
    expect(plan.code).toBe(1);
    expect(plan.err).toMatch(
      /errors\.yaml:14:\d+ tiles\[0\]\.config\.colorRules\[0\]\.operator: the service refuses it: Invalid discriminator value/,
    );
    expect(validations()).toHaveLength(1);
    expect(writes()).toEqual([]);

    ds.sb.requestLog.clear();
    const apply = await cli('apply', '--dir', dir, '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.err).toContain('tiles[0].config.colorRules[0].operator');
    expect(writes()).toEqual([]);
    expect(ds.sb.store.state.dashboards.filter((d) => d.name === 'Errors')).toEqual([]);
  });

  it('--no-remote-validate asks the service nothing before the write', async () => {
    const plan = await cli('plan', '--dir', dir, '--no-remote-validate');
    expect(plan.code).toBe(0);
    expect(validations()).toEqual([]);
  });

  it('a valid file is validated once, applied, and then plans unchanged with no validation request', async () => {
    await writeFile(
      path.join(dir, 'errors.yaml'),
      numberTile('[{ operator: gte, value: 10, color: red, label: many }]'),
    );
    const apply = await cli('apply', '--dir', dir, '--auto-approve');
    expect({ code: apply.code, err: apply.err }).toEqual({ code: 0, err: '' });
    expect(validations()).toHaveLength(1);
    const [stored] = ds.sb.store.state.dashboards.filter((d) => d.name === 'Errors');
    expect(stored.tiles[0]).toMatchObject({
      config: { color: 'red', colorRules: [{ operator: 'gte', value: 10 }] },
    });

    ds.sb.requestLog.clear();
    const again = await cli('plan', '--dir', dir, '--detailed-exitcode');
    expect(again.code).toBe(0);
    expect(validations()).toEqual([]);
    // The dashboard list and the sources list (for `source: Logs`), nothing else.
    expect(api().map((e) => e.method)).toEqual(['GET', 'GET']);
  });

  it('an August field on a tile kind that drops it is refused locally, before any request', async () => {
    await writeFile(
      path.join(dir, 'table.yaml'),
      [
        'name: T',
        'tiles:',
        '  - name: t',
        '    x: 0',
        '    y: 0',
        '    w: 6',
        '    h: 3',
        '    config:',
        '      displayType: table',
        '      source: Logs',
        '      select: [{ aggFn: count }]',
        '      fitYAxisToData: true',
        '',
      ].join('\n'),
    );
    const plan = await cli('plan', '--dir', dir);
    expect(plan.code).toBe(1);
    expect(plan.err).toMatch(
      /table\.yaml:12:\d+ tiles\[0\]\.config\.fitYAxisToData: only on line tiles/,
    );
    expect(api()).toEqual([]);
    await rm(path.join(dir, 'table.yaml'));
  });
});
