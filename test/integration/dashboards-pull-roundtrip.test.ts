/**
 * `dashboards pull` round-trips through the CLI over HTTP to the sandbox: pulled files plan
 * back to no changes (keys, tile keys, alerts, the newer tile fields), a dashboard's own file
 * is rewritten in place with its header, a dashboard another file declares is warned about,
 * and `--target` picks the key the file declares.
 */
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleFolder,
  startDashboardsSandbox,
  type DashboardsSandbox,
} from '../support/dashboards-sandbox';

const EXAMPLES = path.join(import.meta.dirname, '../../dashboards');
let ds: DashboardsSandbox;
let root: string;

beforeAll(async () => {
  ds = await startDashboardsSandbox('current', (sb) => ({
    CLOUDOPS_VAR_WEBHOOK_ID: sb.store.state.seed.webhookId,
  }));
  root = await mkdtemp(path.join(tmpdir(), 'cloudops-roundtrip-'));
  expect((await ds.cli('apply', '--dir', EXAMPLES, '--auto-approve')).code).toBe(0);
  // Only what the files made: the sandbox's seeded hand-made dashboards plan as adoptions.
  const state = ds.sb.store.state;
  state.dashboards = state.dashboards.filter((d) => d.tags.includes('cloudops'));
});
afterAll(async () => {
  await ds.sb.close();
  await rm(root, { recursive: true, force: true });
});

const folder = async (name: string) => {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  return dir;
};
const files = async (dir: string) =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();

/** `plan` of the folder: exit 0 with --detailed-exitcode means nothing is pending. */
async function expectNoChanges(dir: string) {
  const plan = await ds.cli('plan', '--dir', dir, '--detailed-exitcode');
  expect(plan.out).toContain('No changes.');
  expect(plan.code).toBe(0);
}

describe.each(['current', 'spec'] as const)(
  'pull into an empty folder, then plan (%s profile)',
  (profile) => {
    let own: DashboardsSandbox;
    beforeAll(async () => {
      own = await startDashboardsSandbox(profile, (sb) => ({
        CLOUDOPS_VAR_WEBHOOK_ID: sb.store.state.seed.webhookId,
      }));
      const examples = await exampleFolder(profile);
      expect((await own.cli('apply', '--dir', examples, '--auto-approve')).code).toBe(0);
      const state = own.sb.store.state;
      state.dashboards = state.dashboards.filter((d) => d.tags.includes('cloudops'));
    });
    afterAll(() => own.sb.close());

    it('plans no changes for the examples: keys, tile keys and alerts come back as declared', async () => {
      const dir = await folder(`empty-${profile}`);
      const pulled = await own.cli('pull', '--dir', dir);
      expect(pulled.code).toBe(0);
      expect(pulled.err).toBe('');
      // Each key as declared (not a slug of the name), so the files sit where their key says.
      // The folder's webhook and saved search come back too (the spec snapshot has neither).
      const kinds =
        profile === 'current'
          ? [
              path.join('alerting', 'checkout-alerts.yaml'),
              path.join('alerting', 'checkout-errors-search.yaml'),
            ]
          : [];
      expect(await files(dir)).toEqual([
        ...kinds,
        'checkout-service.yaml',
        path.join('data', 'ingest.yaml'),
        path.join('platform', 'overview.yaml'),
      ]);
      const checkout = await readFile(path.join(dir, 'checkout-service.yaml'), 'utf8');
      expect(checkout.split('\n')[0]).toBe('# yaml-language-server: $schema=./.schema.json');
      expect(checkout).toContain('  - key: errors\n    name: Checkout errors\n');
      const ingest = await readFile(path.join(dir, 'data', 'ingest.yaml'), 'utf8');
      expect(ingest.split('\n')[0]).toBe('# yaml-language-server: $schema=../.schema.json');
      const plan = await own.cli('plan', '--dir', dir, '--detailed-exitcode');
      expect(plan.out).toContain('No changes.');
      expect(plan.code).toBe(0);
    });
  },
);

describe('pull into the folder that declares the dashboards', () => {
  it('rewrites each file in place (--force), keeping its schema comment and format', async () => {
    const dir = await folder('declared');
    await cp(EXAMPLES, dir, { recursive: true });
    const before = await files(dir);
    const pulled = await ds.cli('pull', '--dir', dir, '--force');
    expect(pulled.code, pulled.err).toBe(0);
    expect(await files(dir)).toEqual(before);
    const checkout = await readFile(path.join(dir, 'checkout-service.yaml'), 'utf8');
    expect(checkout.split('\n')[0]).toBe('# yaml-language-server: $schema=./.schema.json');
    const overview: unknown = JSON.parse(
      await readFile(path.join(dir, 'platform-overview.json'), 'utf8'),
    );
    expect(overview).toMatchObject({ $schema: './.schema.json', key: 'platform/overview' });
    const ingest = await readFile(path.join(dir, 'data', 'ingest.yml'), 'utf8');
    expect(ingest.split('\n')[0]).toBe('# yaml-language-server: $schema=../.schema.json');
    expect(ingest).not.toContain('key:'); // the path gives it
    await expectNoChanges(dir);
  });

  it('--target matches the key the file declares', async () => {
    const dir = await folder('target');
    await cp(EXAMPLES, dir, { recursive: true });
    const pulled = await ds.cli(
      'pull',
      '--dir',
      dir,
      '--force',
      '--target',
      'platform/overview',
      '--json',
    );
    expect(pulled.code, pulled.err).toBe(0);
    expect((JSON.parse(pulled.out) as { files: unknown }).files).toEqual([
      {
        file: 'platform-overview.json',
        key: 'platform/overview',
        name: 'Platform overview',
        alerts: [],
      },
    ]);
  });

  it('warns, in one line naming both files, when another file declares the pulled dashboard', async () => {
    const dir = await folder('twin');
    const copy = (await readFile(path.join(EXAMPLES, 'checkout-service.yaml'), 'utf8')).replace(
      'name: Checkout service',
      'key: checkout-copy\nname: Checkout service',
    );
    await writeFile(path.join(dir, 'mine.yaml'), copy);
    const pulled = await ds.cli('pull', '--dir', dir, '--target', 'checkout-service');
    expect(pulled.code, pulled.err).toBe(0);
    expect(pulled.err.trim().split('\n')).toEqual([
      'warning: "Checkout service" pulled into checkout-service.yaml is already declared by mine.yaml (key "checkout-copy"): the next plan would see both',
    ]);
  });
});

describe('pull of the newer tile kinds and fields', () => {
  it('plans no changes for the newer tile kinds and fields and the between alert', async () => {
    const source = await folder('newer-src');
    await writeFile(path.join(source, 'newer.yaml'), NEWER);
    const applied = await ds.cli('apply', '--dir', source, '--auto-approve');
    expect(applied.code, applied.err).toBe(0);
    const dir = await folder('newer');
    expect((await ds.cli('pull', '--dir', dir, '--target', 'team/newer')).code).toBe(0);
    expect(await files(dir)).toEqual([path.join('team', 'newer.yaml')]);
    const text = await readFile(path.join(dir, 'team', 'newer.yaml'), 'utf8');
    expect(text).toContain('key: latency');
    expect(text).toContain('thresholdMax: 900');
    await expectNoChanges(dir);
  });
});

/** The August 2026 tile kinds and fields, and a between alert on a keyed tile. */
const NEWER = `key: team/newer
name: Newer tiles
tiles:
  - key: latency
    name: Latency band
    x: 0
    y: 0
    w: 12
    h: 4
    config:
      displayType: line
      source: Logs
      fitYAxisToData: true
      select:
        - { aggFn: avg, valueExpression: Duration, where: '', whereLanguage: lucene }
    alerts:
      - name: Latency out of band
        threshold: 100
        thresholdMax: 900
        thresholdType: not_between
        interval: 15m
        channel: { type: webhook, webhookId: '\${WEBHOOK_ID}' }
        message: Latency left its band
  - name: Errors by endpoint
    x: 12
    y: 0
    w: 12
    h: 4
    config:
      displayType: bar
      source: Logs
      groupBy: endpoint
      limit: 5
      orderBy: count desc
      select:
        - { aggFn: count, where: 'level:error', whereLanguage: lucene }
  - name: Error count
    x: 0
    y: 4
    w: 12
    h: 4
    config:
      displayType: number
      source: Logs
      color: green
      colorRules:
        - { operator: gt, value: 10, color: red, label: too many }
      backgroundChart: { type: area, color: red }
      select:
        - { aggFn: count, where: 'level:error', whereLanguage: lucene }
  - name: Slow requests
    x: 12
    y: 4
    w: 12
    h: 4
    config:
      displayType: table
      source: Logs
      groupBy: endpoint
      onClick: { type: external, urlTemplate: 'https://example.com/{{endpoint}}' }
      select:
        - { aggFn: max, valueExpression: Duration, where: '', whereLanguage: lucene }
`;
