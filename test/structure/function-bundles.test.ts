/**
 * Each function bundles only the management operations it calls (and their schemas): the
 * operation groups are separate modules bound through a kit (lib/api/kit.ts), and the package
 * is free of import side effects, so esbuild leaves out every module a function never reaches.
 * The sync's cold start evaluates only what every run needs: what a run may not need is
 * reached through `import()` (evaluated on first call) or not bundled at all.
 */
import { build, type Metafile } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The repo files in the bundle of `entry` (as the stack does: SDK external, ESM, node). */
async function bundledFiles(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [path.join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    logLevel: 'silent',
  });
  // The output's inputs: what is left after tree shaking (metafile.inputs lists all it read).
  const [output] = Object.values(result.metafile.outputs);
  return Object.entries(output.inputs)
    .filter(([file, { bytesInOutput }]) => bytesInOutput > 0 && !file.includes('node_modules'))
    .map(([file]) => file);
}

const GROUPS = {
  keys: 'lib/api/management/keys.ts',
  pipes: 'lib/api/management/pipes.ts',
  metrics: 'lib/api/management/metrics.ts',
  dashboards: 'lib/api/management/observability.ts',
  openSource: 'lib/api/observability-client.ts',
  dashboardSchema: 'lib/schemas/dashboard.ts',
  prometheus: 'lib/metrics/prometheus.ts',
} as const;
type Group = keyof typeof GROUPS;

const FUNCTIONS: { entry: string; carries: Group[] }[] = [
  { entry: 'functions/rotate-key/handler.ts', carries: ['keys', 'pipes'] },
  { entry: 'functions/rotate-key/sentinel.ts', carries: ['keys'] },
  { entry: 'functions/pipe-watchdog/consumer.ts', carries: ['pipes', 'metrics', 'prometheus'] },
  {
    entry: 'functions/sync-dashboards/handler.ts',
    carries: ['dashboards', 'openSource', 'dashboardSchema'],
  },
  {
    entry: 'functions/provision-alerts/handler.ts',
    carries: ['dashboards', 'openSource', 'dashboardSchema'],
  },
];

describe('what each function bundles of the API clients', () => {
  it.each(FUNCTIONS)('$entry carries only $carries', async ({ entry, carries }) => {
    const files = await bundledFiles(entry);
    const found = (Object.keys(GROUPS) as Group[]).filter((g) => files.includes(GROUPS[g]));
    expect(found.sort()).toEqual([...carries].sort());
  });
});

const SYNC_ENTRY = 'functions/sync-dashboards/handler.ts';

/** Inputs reachable from `entry` through static imports only (what importing evaluates). */
function staticallyReached(metafile: Metafile, entry: string): Set<string> {
  const reached = new Set([entry]);
  for (const file of reached)
    for (const edge of metafile.inputs[file]?.imports ?? [])
      if (edge.kind === 'import-statement') reached.add(edge.path);
  return reached;
}

describe("what the sync function's import evaluates", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cloudops-sync-bundle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reaches js-yaml only through import() (first parse), and never bundles `yaml` (CLI only)', async () => {
    const { metafile } = await build({
      entryPoints: [path.join(ROOT, SYNC_ENTRY)],
      absWorkingDir: ROOT,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      mainFields: ['module', 'main'],
      external: ['@aws-sdk/*'],
      logLevel: 'silent',
    });
    const inputs = Object.keys(metafile.inputs);
    const jsYaml = inputs.filter((f) => f.includes('node_modules/js-yaml/'));
    expect(jsYaml).not.toEqual([]);
    const atImport = [...staticallyReached(metafile, SYNC_ENTRY)];
    expect(atImport.filter((f) => f.includes('node_modules/js-yaml/'))).toEqual([]);
    expect(inputs.filter((f) => f.includes('node_modules/yaml/'))).toEqual([]);
  });

  it('builds no Intl collator (its ICU data costs a cold start about 70 M instructions)', async () => {
    const file = path.join(dir, 'index.mjs');
    await build({
      entryPoints: [path.join(ROOT, SYNC_ENTRY)],
      absWorkingDir: ROOT,
      outfile: file,
      bundle: true,
      platform: 'node',
      format: 'esm',
      mainFields: ['module', 'main'],
      logLevel: 'silent',
    });
    // Counts every collator built while the bundle is imported (a fresh process: nothing cached).
    const script = `
      let built = 0;
      const Real = Intl.Collator;
      const count = (make) => (...args) => (built++, make(...args));
      Intl.Collator = new Proxy(Real, {
        construct: (target, args) => count((...a) => Reflect.construct(target, a))(...args),
        apply: (target, self, args) => count((...a) => Reflect.apply(target, self, a))(...args),
      });
      await import(process.argv[1]);
      console.log(JSON.stringify({ built }));`;
    const run = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', script, pathToFileURL(file).href],
      { encoding: 'utf8', env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1' } },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ built: 0 });
  });
});
