/**
 * Each function bundles only the management operations it calls (and their schemas): the
 * operation groups are separate modules bound through a kit (lib/api/kit.ts), and the package
 * is free of import side effects, so esbuild leaves out every module a function never reaches.
 * Below: what else stays out of every function bundle, so it cannot creep back, and what the
 * sync's cold start evaluates: only what every run needs; what a run may not need is reached
 * through `import()` (evaluated on first call) or not bundled at all.
 */
import { build, type Metafile } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';
import { readSourceTree } from './source-tree';

const ROOT = path.resolve(import.meta.dirname, '../..');

const GROUPS = {
  keys: 'lib/api/management/keys.ts',
  pipes: 'lib/api/management/pipes.ts',
  pipeProbe: 'lib/api/management/pipe-probe.ts',
  metrics: 'lib/api/management/metrics.ts',
  dashboards: 'lib/api/management/observability.ts',
  alerts: 'lib/api/management/alerts.ts',
  openSource: 'lib/api/observability-client.ts',
  openSourceAlerts: 'lib/api/observability-alerts.ts',
  dashboardSchema: 'lib/schemas/dashboard.ts',
  prometheus: 'lib/metrics/prometheus.ts',
} as const;
type Group = keyof typeof GROUPS;

const FUNCTIONS: { entry: string; carries: Group[] }[] = [
  { entry: 'functions/rotate-key/handler.ts', carries: ['keys', 'pipeProbe'] },
  { entry: 'functions/rotate-key/sentinel.ts', carries: ['keys'] },
  { entry: 'functions/pipe-watchdog/consumer.ts', carries: ['pipes', 'metrics', 'prometheus'] },
  {
    entry: 'functions/sync-dashboards/handler.ts',
    carries: ['dashboards', 'alerts', 'openSource', 'openSourceAlerts', 'dashboardSchema'],
  },
  // Alerts alone, in either mode: no dashboard, webhook, saved-search or source operation.
  { entry: 'functions/provision-alerts/handler.ts', carries: ['alerts', 'openSourceAlerts'] },
];

describe('what each function bundles of the API clients', () => {
  it.each(FUNCTIONS)('$entry carries only $carries', async ({ entry, carries }) => {
    const { files } = await bundleOf(entry);
    const found = (Object.keys(GROUPS) as Group[]).filter((g) => files.includes(GROUPS[g]));
    expect(found.sort()).toEqual([...carries].sort());
  });
});

/**
 * zod namespaces esbuild cannot tree-shake once kept (lib/schemas/builders.ts): `z.catch`
 * reaches the whole util module through `core.util`, `z.iso.*` all four ISO formats,
 * `z.coerce.*` the bigint and date coercions.
 */
/** esbuild names a namespace object `<name>_exports`, numbered when the name clashes. */
const WHOLE_ZOD_NAMESPACE = /\bvar ((?:util|iso|coerce)_exports\d*) =/g;

function wholeZodNamespaces(text: string): string[] {
  return [...text.matchAll(WHOLE_ZOD_NAMESPACE)].map((m) => m[1]);
}

const ALL_FUNCTIONS = [...FUNCTIONS.map((f) => f.entry), 'functions/pipe-watchdog/handler.ts'];

/** The events the sync emits and the provisioner reads, with the alert schemas they carry. */
const ALERT_EVENT_SCHEMAS = ['lib/events/schemas.ts', 'lib/schemas/alert.ts'];

/** What a function cannot use as deployed, kept out of its bundle (files, or SDK packages). */
const KEPT_OUT: { entry: string; why: string; out: string[] }[] = [
  {
    entry: 'functions/rotate-key/sentinel.ts',
    why: 'it notifies through SNS alone (SENTINEL_NOTIFIERS, what the stack binds it to)',
    out: [
      'lib/watch/notifiers/registry.ts',
      'lib/watch/routes.ts',
      'lib/watch/notifiers/slack.ts',
      'lib/watch/notifiers/webhook.ts',
      'lib/watch/notifiers/pagerduty.ts',
      'lib/watch/notifiers/eventbridge.ts',
      '@aws-sdk/client-eventbridge',
      ...ALERT_EVENT_SCHEMAS,
    ],
  },
  {
    entry: 'functions/pipe-watchdog/consumer.ts',
    why: 'its notices carry the pipe event alone (lib/events/pipe-state.ts)',
    out: ALERT_EVENT_SCHEMAS,
  },
];

describe('what stays out of every function bundle', () => {
  it.each(KEPT_OUT)('$entry carries none of $out: $why', async ({ entry, out }) => {
    const { files, text } = await bundleOf(entry);
    // SDK packages are external here: the bundle imports them by name.
    const carried = out.filter((name) =>
      name.startsWith('@') ? text.includes(`from "${name}"`) : files.includes(name),
    );
    expect(carried).toEqual([]);
  });

  it.each(ALL_FUNCTIONS)('%s keeps no whole zod namespace', async (entry) => {
    const { text } = await bundleOf(entry);
    expect(wholeZodNamespaces(text)).toEqual([]);
  });

  it("the namespace check sees one when a module reaches it (zod/mini's own iso.datetime)", async () => {
    const result = await build({
      stdin: {
        contents: "import * as z from 'zod/mini'; export const at = z.iso.datetime();",
        resolveDir: ROOT,
      },
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      mainFields: ['module', 'main'],
      logLevel: 'silent',
    });
    expect(wholeZodNamespaces(result.outputFiles[0].text)).toContain('iso_exports');
  });
});

describe("node-fetch's multipart parser, left out of the bundles (cdk/constructs/function.ts)", () => {
  it('nothing the functions bundle reads a body as form data (the only caller of that parser)', () => {
    const callers = [...readSourceTree(['lib', 'functions'])]
      .filter(([, text]) => /\.formData\s*\(/.test(text))
      .map(([file]) => file);
    expect(callers).toEqual([]);
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

  it("reaches js-yaml's loader only through import() (first parse), and never bundles `yaml` (CLI only)", async () => {
    const { metafile } = await bundleOf(SYNC_ENTRY);
    const inputs = Object.keys(metafile.inputs);
    // The vendored loader alone: the package's index (dumper, YAML 1.1 types) stays out.
    const isJsYaml = (f: string) =>
      f.includes('node_modules/js-yaml/') || f.startsWith('lib/dashboards/vendor/js-yaml');
    expect(inputs.filter(isJsYaml)).toEqual(['lib/dashboards/vendor/js-yaml-loader.mjs']);
    const atImport = [...staticallyReached(metafile, SYNC_ENTRY)];
    expect(atImport.filter(isJsYaml)).toEqual([]);
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
