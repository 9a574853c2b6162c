/**
 * The Node the stack deploys (cdk/constructs/function.ts RUNTIME), for the cold-start figures:
 * the machine's node may be another major. Installed once into node_modules/.cache from npm's
 * platform package (`node-<os>-<arch>`, which carries the binary; no install script runs).
 * When it cannot be had, the bench says so and measures nothing in its name.
 *
 *   npx tsx bench/node-runtime.ts      prints the binary's path (installs it if missing)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RUNTIME } from '../cdk/constructs/function';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The newest 24.x on npm when measured; Lambda's nodejs24.x tracks the latest 24 minor. */
const DEPLOYED_NODE_VERSION = '24.21.0';

export type NodeRuntime =
  { ok: true; binary: string; version: string } | { ok: false; version: string; reason: string };

/** The deployed runtime's major, from the stack (`nodejs24.x` -> 24). */
function deployedMajor(): number {
  const major = /^nodejs(\d+)\.x$/.exec(RUNTIME.name)?.[1];
  if (!major) throw new Error(`bench: cannot read a Node major from runtime ${RUNTIME.name}`);
  return Number(major);
}

export function deployedNode(): NodeRuntime {
  const version = DEPLOYED_NODE_VERSION;
  if (Number(version.split('.')[0]) !== deployedMajor()) {
    const reason = `the stack deploys ${RUNTIME.name} but the bench pins node ${version}: update DEPLOYED_NODE_VERSION in bench/node-runtime.ts`;
    return { ok: false, version, reason };
  }
  if (`v${version}` === process.version) return { ok: true, binary: process.execPath, version };
  const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  const prefix = path.join(ROOT, 'node_modules/.cache/cloudops-bench', `${pkg}-${version}`);
  const binary = path.join(prefix, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(binary)) {
    const args = ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund'];
    const npm = spawnSync('npm', [...args, '--prefix', prefix, `${pkg}@${version}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (npm.status !== 0 || !existsSync(binary)) {
      const why = (npm.stderr || npm.error?.message || '').trim().split('\n').at(-1);
      return { ok: false, version, reason: `npm install ${pkg}@${version} failed: ${why}` };
    }
  }
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8', env: {} });
  if (run.stdout?.trim() !== `v${version}`) {
    return { ok: false, version, reason: `${binary} does not run here (${run.error?.message})` };
  }
  return { ok: true, binary, version };
}

if (process.argv[1] === import.meta.filename) {
  const node = deployedNode();
  if (!node.ok) {
    console.error(node.reason);
    process.exit(1);
  }
  console.log(node.binary);
}
