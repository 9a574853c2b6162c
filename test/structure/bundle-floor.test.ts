/**
 * What every function bundle carries below its own logic (the floor): built with the stack's
 * esbuild options (BUNDLING, the SDK left external to keep this fast), none of the functions
 * bundles a polyfill of what Node has built in; node-fetch's are replaced by cdk/bundling-shims/.
 */
import { build, type Metafile } from 'esbuild';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../bench/bundles';
import * as managementPaths from '../../lib/api/management/paths';

const ROOT = path.resolve(import.meta.dirname, '../..');

const ENTRIES = [
  'functions/rotate-key/handler.ts',
  'functions/rotate-key/sentinel.ts',
  'functions/sync-dashboards/handler.ts',
  'functions/provision-alerts/handler.ts',
  'functions/pipe-watchdog/handler.ts',
  'functions/pipe-watchdog/consumer.ts',
];

/** node-fetch's polyfills of Blob, File, FormData, DOMException and web streams, and its `data:` decoder. */
const POLYFILLS = [
  'fetch-blob',
  'formdata-polyfill',
  'node-domexception',
  'web-streams-polyfill',
  'data-uri-to-buffer',
];

async function packagesOf(entry: string): Promise<string[]> {
  const options = esbuildOptions();
  const result = await build({
    ...options,
    entryPoints: [path.join(ROOT, entry)],
    absWorkingDir: ROOT,
    outdir: path.join(ROOT, '.test-output/bundle-floor'),
    write: false,
    sourcemap: false,
    metafile: true,
    external: [...(options.external ?? []), '@aws-sdk/*'],
  });
  return packagesIn(result.metafile);
}

function packagesIn(metafile: Metafile): string[] {
  const names = new Set<string>();
  for (const output of Object.values(metafile.outputs))
    for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
      if (name && bytesInOutput > 0) names.add(name);
    }
  return [...names].sort();
}

describe('the floor of every function bundle', () => {
  it.each(ENTRIES)('%s carries no polyfill of a Node built-in', async (entry) => {
    const packages = await packagesOf(entry);
    expect(packages.filter((name) => POLYFILLS.includes(name))).toEqual([]);
  });
});

/** The management path builders left in a bundle (esbuild keeps each as `var name = `). */
async function managementPathsIn(entry: string): Promise<string[]> {
  const result = await build({
    ...esbuildOptions(),
    entryPoints: [path.join(ROOT, entry)],
    absWorkingDir: ROOT,
    outdir: path.join(ROOT, '.test-output/bundle-floor'),
    write: false,
    minify: false,
    sourcemap: false,
    external: ['@aws-sdk/*'],
  });
  const text = result.outputFiles[0].text;
  const start = text.indexOf('// lib/api/management/paths.ts\n');
  if (start < 0) return [];
  const section = text.slice(start).split(/\n\/\/ (?!lib\/api\/management\/paths)/)[0];
  // esbuild numbers a name that clashes with another module's (`pipe2`).
  return Object.keys(managementPaths)
    .filter((name) => new RegExp(`^var ${name}\\d* = `, 'm').test(section))
    .sort();
}

describe('management paths: each function keeps those of the operations it calls', () => {
  it('the key rotation keeps key and pipe paths, no dashboard or metrics path', async () => {
    expect(await managementPathsIn('functions/rotate-key/handler.ts')).toEqual(
      ['activities', 'key', 'keys', 'pipe', 'pipeSettings', 'pipeState', 'pipes'].sort(),
    );
  });

  it('the alert provisioner keeps observability paths only', async () => {
    const kept = await managementPathsIn('functions/provision-alerts/handler.ts');
    expect(kept).toEqual(['dashboardValidate', 'observability', 'observabilityItem']);
  });
});
