/**
 * What every function bundle carries below its own logic (the floor), built with the stack's
 * esbuild options (BUNDLING; the SDK left external and the output unminified, to keep this fast
 * and readable): no polyfill of what Node has built in (node-fetch's are replaced by
 * cdk/bundling-shims/), and of the API core only what the function's operations reach.
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
  'functions/sync-dashboards/report-handler.ts',
  'functions/provision-alerts/handler.ts',
  'functions/pipe-watchdog/handler.ts',
  'functions/pipe-watchdog/consumer.ts',
];
const CONSUMER = 'functions/pipe-watchdog/consumer.ts';

/** node-fetch's polyfills of Blob, File, FormData, DOMException and web streams, and its `data:` decoder. */
const POLYFILLS = [
  'fetch-blob',
  'formdata-polyfill',
  'node-domexception',
  'web-streams-polyfill',
  'data-uri-to-buffer',
];

interface Bundle {
  /** Packages and repo files that left bytes in it. */
  packages: string[];
  files: string[];
  text: string;
}

const built = new Map<string, Promise<Bundle>>();

function bundleOf(entry: string): Promise<Bundle> {
  let bundle = built.get(entry);
  if (!bundle) built.set(entry, (bundle = buildBundle(entry)));
  return bundle;
}

async function buildBundle(entry: string): Promise<Bundle> {
  const options = esbuildOptions();
  const result = await build({
    ...options,
    entryPoints: [path.join(ROOT, entry)],
    absWorkingDir: ROOT,
    outdir: path.join(ROOT, '.test-output/bundle-floor'),
    write: false,
    minify: false,
    sourcemap: false,
    metafile: true,
    external: [...(options.external ?? []), '@aws-sdk/*'],
  });
  const inputs = keptInputs(result.metafile);
  const packages = new Set<string>();
  for (const file of inputs) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
    if (name) packages.add(name);
  }
  return {
    packages: [...packages].sort(),
    files: inputs.filter((file) => !file.includes('node_modules/')),
    text: result.outputFiles.find((file) => file.path.endsWith('.js'))?.text ?? '',
  };
}

function keptInputs(metafile: Metafile): string[] {
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([file]) => file),
  );
}

/** The management path builders left in a bundle (esbuild keeps each as `var name = `). */
async function managementPathsIn(entry: string): Promise<string[]> {
  const { text } = await bundleOf(entry);
  const start = text.indexOf('// lib/api/management/paths.ts\n');
  if (start < 0) return [];
  const section = text.slice(start).split(/\n\/\/ (?!lib\/api\/management\/paths)/)[0];
  // esbuild numbers a name that clashes with another module's (`pipe2`).
  return Object.keys(managementPaths)
    .filter((name) => new RegExp(`^var ${name}\\d* = `, 'm').test(section))
    .sort();
}

describe('the floor of every function bundle', () => {
  it.each(ENTRIES)('%s carries no polyfill of a Node built-in', async (entry) => {
    const { packages } = await bundleOf(entry);
    expect(packages.filter((name) => POLYFILLS.includes(name))).toEqual([]);
  });

  it.each(ENTRIES)(
    '%s carries the text answer reader only if it reads metrics (the consumer)',
    async (entry) => {
      const { files } = await bundleOf(entry);
      expect(files.includes('lib/api/text-answer.ts')).toBe(entry === CONSUMER);
    },
  );
});

describe('management paths: each function keeps those of the operations it calls', () => {
  it('the key rotation keeps the key paths and the pipe listing of its probe, nothing else', async () => {
    expect(await managementPathsIn('functions/rotate-key/handler.ts')).toEqual(
      ['key', 'keys', 'pipes'].sort(),
    );
  });

  it('the alert provisioner keeps the observability object paths only (no dry run)', async () => {
    const kept = await managementPathsIn('functions/provision-alerts/handler.ts');
    expect(kept).toEqual(['observability', 'observabilityItem']);
  });
});
