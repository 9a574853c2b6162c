/**
 * Each function bundles only the management operations it calls (and their schemas): the
 * operation groups are separate modules bound through a kit (lib/api/kit.ts), and the package
 * is free of import side effects, so esbuild leaves out every module a function never reaches.
 */
import { build } from 'esbuild';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

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
