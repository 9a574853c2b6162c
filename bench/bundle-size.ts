/**
 * Bundle size of each function, from a synth WITH bundling (the exact esbuild options the
 * stack deploys: cdk/constructs/function.ts BUNDLING). Prints KiB of the `.mjs` and its
 * source map per function, and how long the bundling synth took. `npm run bench` covers this
 * and more (baselines, what the bytes are); this stays as the quick look.
 *
 *   npx tsx bench/bundle-size.ts [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { synthBundles } from './bundles';

const json = process.argv.includes('--json');
const outdir = mkdtempSync(path.join(tmpdir(), 'cloudops-bundles-'));
const kib = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
try {
  const { bundles, variants, synthMs } = synthBundles(outdir);
  const rows = [...bundles, ...variants].map((b) => ({
    function: b.function,
    bundleKiB: kib(b.bytes),
    sourceMapKiB: kib(b.mapBytes),
  }));
  if (json) {
    console.log(JSON.stringify({ synthMs: Math.round(synthMs), functions: rows }, null, 2));
  } else {
    const smallest = Math.min(...rows.map((r) => r.bundleKiB));
    console.log('function               bundle KiB   map KiB   x smallest');
    for (const r of rows) {
      console.log(
        `${r.function.padEnd(22)} ${String(r.bundleKiB).padStart(10)} ${String(r.sourceMapKiB).padStart(9)} ${(r.bundleKiB / smallest).toFixed(2).padStart(12)}`,
      );
    }
    console.log(
      `bundling synth: ${(synthMs / 1000).toFixed(1)} s (one esbuild run per function + template)`,
    );
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
