/**
 * Bundle size of each function, from a synth WITH bundling (the exact esbuild options the
 * stack deploys: cdk/constructs/function.ts BUNDLING). Prints KiB of the `.mjs` and its
 * source map per function, and how long the bundling synth took.
 *
 *   npx tsx bench/bundle-size.ts [--json]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../cdk/build';
import { BASE_CONTEXT } from './bundle-context';

const json = process.argv.includes('--json');
const outdir = mkdtempSync(path.join(tmpdir(), 'cloudops-bundles-'));
try {
  const started = performance.now();
  const { app, stack } = buildApp({
    outdir,
    bundling: true,
    cfnValidation: false,
    treeMetadata: false,
    // Asset paths in the template's metadata (the CLI turns this on by default).
    context: { ...BASE_CONTEXT, 'aws:cdk:enable-asset-metadata': true },
  });
  const assembly = app.synth();
  const synthMs = performance.now() - started;
  const template = assembly.getStackByName(stack.stackName).template as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
  };
  const functions = {
    'rotate-key': stack.keyRotation.rotator,
    'key-sentinel': stack.keyRotation.sentinel,
    'sync-dashboards': stack.dashboardSync.sync,
    'provision-alerts': stack.alertProvisioning.provision,
    'pipe-watchdog': stack.pipeWatchdog.watchdog,
  };
  const kib = (file: string) => Math.round((statSync(file).size / 1024) * 10) / 10;
  const rows = Object.entries(functions).map(([name, f]) => {
    const logicalId = stack.getLogicalId(f.fn.node.defaultChild as never);
    const assetPath = template.Resources[logicalId]?.Metadata?.['aws:asset:path'];
    if (!assetPath) throw new Error(`no bundled asset for ${name}`);
    const dir = path.join(outdir, assetPath);
    return {
      function: name,
      bundleKiB: kib(path.join(dir, 'index.mjs')),
      sourceMapKiB: kib(path.join(dir, 'index.mjs.map')),
    };
  });
  if (json) {
    console.log(JSON.stringify({ synthMs: Math.round(synthMs), functions: rows }, null, 2));
  } else {
    const smallest = Math.min(...rows.map((r) => r.bundleKiB));
    console.log('function           bundle KiB   map KiB   x smallest');
    for (const r of rows) {
      console.log(
        `${r.function.padEnd(18)} ${String(r.bundleKiB).padStart(10)} ${String(r.sourceMapKiB).padStart(9)} ${(r.bundleKiB / smallest).toFixed(2).padStart(12)}`,
      );
    }
    console.log(`bundling synth: ${(synthMs / 1000).toFixed(1)} s (5 esbuild runs + template)`);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
