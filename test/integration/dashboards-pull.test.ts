/**
 * `dashboards pull` through the CLI: --json prints JSON, and it refuses to overwrite files
 * without --force (writing nothing).
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';

const EXAMPLES = path.join(import.meta.dirname, '../../dashboards');
let ds: DashboardsSandbox;
let dir: string;

beforeAll(async () => {
  ds = await startDashboardsSandbox('current', (sb) => ({
    CLOUDOPS_VAR_WEBHOOK_ID: sb.store.state.seed.webhookId,
  }));
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-pull-'));
});
afterAll(async () => {
  await ds.sb.close();
  await rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => ds.cli(...argv);

describe('dashboards pull', () => {
  it('pulls the applied examples into an empty folder, listing the files as JSON with --json', async () => {
    expect((await cli('apply', '--dir', EXAMPLES, '--auto-approve')).code).toBe(0);
    // Only what the examples made: the sandbox's seeded hand-made dashboards would plan as new.
    const state = ds.sb.store.state;
    state.dashboards = state.dashboards.filter((d) => d.tags.includes('cloudops'));
    const pulled = await cli('pull', '--dir', dir, '--json');
    expect(pulled.code).toBe(0);
    const json = JSON.parse(pulled.out) as { files: { file: string; key: string }[] };
    const written = await readdir(dir, { recursive: true, withFileTypes: true });
    expect(json.files.map((f) => f.file).sort()).toEqual(
      written
        .filter((e) => e.isFile())
        .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
        .sort(),
    );
    expect(json.files).toHaveLength(5);
    expect(json.files.map((f) => f.key).sort()).toEqual([
      'alerting/checkout-alerts',
      'alerting/checkout-errors-search',
      'checkout-service',
      'data/ingest',
      'platform/overview',
    ]);
  });

  it('refuses to overwrite files without --force, writing nothing; --force overwrites', async () => {
    const first = (await readdir(dir)).find((f) => f.endsWith('.yaml'))!;
    await writeFile(path.join(dir, first), '# mine\n');
    const refused = await cli('pull', '--dir', dir);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`pull would overwrite 5 file(s) in ${dir}`);
    expect(refused.err).toContain('nothing was written (--force overwrites them)');
    expect(await readFile(path.join(dir, first), 'utf8')).toBe('# mine\n');

    const forced = await cli('pull', '--dir', dir, '--force');
    expect(forced.code).toBe(0);
    expect(await readFile(path.join(dir, first), 'utf8')).not.toBe('# mine\n');
  });
});
