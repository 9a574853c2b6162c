// Builds the `cloudops` bin: one ESM entry (dist/cloudops.js) plus a chunk per command, so a run
// loads only what its command uses and no TypeScript is compiled at run time. Runs at `prepare`
// (npm ci / npm install in a clone) and `prepack`; `node cli/build.js --if-stale` rebuilds only
// when a source file changed since the last build (tests that spawn the bin call it).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
// The repo files the last build read (not shipped: `files` lists only the .js).
const inputsFile = path.join(dist, 'inputs.json');
/** The package's `bin`: npx and npm's bin links run it as a program, so it needs its execute bit. */
export const BIN = path.join(dist, 'cloudops.js');

/** True when dist is missing, its bin not executable, or any input of the last build newer than it. */
export function isStale() {
  if (!existsSync(inputsFile) || !existsSync(BIN)) return true;
  if ((statSync(BIN).mode & 0o111) === 0) return true;
  const built = statSync(inputsFile).mtimeMs;
  const inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  return [...inputs, 'package.json'].some((file) => {
    try {
      return statSync(path.join(root, file)).mtimeMs > built;
    } catch {
      return true; // an input was deleted or moved
    }
  });
}

/** Builds into `outdir` (default dist/; a test builds a copy elsewhere). */
export async function build({ outdir = dist } = {}) {
  const { build: esbuild } = await import('esbuild');
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: { cloudops: 'cli/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    minify: true,
    // Maps without the sources: `--debug` stack traces name `.ts` files and lines (main.ts turns
    // them on only then, so a normal start never parses them).
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    chunkNames: 'chunks/[name]-[hash]',
    define: { __CLOUDOPS_VERSION__: JSON.stringify(pkg.version) },
    // `node --`: Node 20 reads a `--env-file` anywhere in argv as its own flag (and exits 9 when
    // the file is missing); after `--` every argument is ours. Some bundled CommonJS packages
    // call require() for Node built-ins.
    banner: {
      js: "#!/usr/bin/env -S node --\nimport { createRequire as __cloudopsRequire } from 'node:module';\nconst require = __cloudopsRequire(import.meta.url);",
    },
    metafile: true,
    logLevel: 'warning',
  });
  // esbuild writes files 0644; `npx cloudops` then fails with "Permission denied" (exit 127).
  chmodSync(path.join(outdir, path.basename(BIN)), 0o755);
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/'));
  writeFileSync(path.join(outdir, path.basename(inputsFile)), JSON.stringify(inputs));
  return result;
}

/** Rebuilds when stale; concurrent callers (parallel tests) wait for one build. */
export async function buildIfStale() {
  if (!isStale()) return;
  const lock = path.join(root, '.dist.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed build is stale after a minute.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 60_000)
        rmSync(lock, { recursive: true, force: true });
      await sleep(100);
    }
  }
  try {
    if (isStale()) await build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale')) await buildIfStale();
  else await build();
}
