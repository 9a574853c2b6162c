/**
 * How long `cloudops --help` / `--version` take to start, against a bare `node -e 0` measured in
 * the same run (interleaved, so machine load hits both alike). Runs the built bin (dist/), as an
 * installed package does; builds it first if a source changed. Every child gets an empty
 * environment: an inherited NODE_EXTRA_CA_CERTS alone made `node -e 0` execute 5.6x the
 * instructions (callgrind: 502 M vs 89 M), which flattered the ratio.
 *   npx tsx bench/figures/cli.ts
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Figure } from './types';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'dist/cloudops.js');
const ROUNDS = 21;

function timeMs(args: string[]): number {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { stdio: 'ignore', env: {} });
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function measure(): Promise<Figure[]> {
  const { buildIfStale } = (await import(pathToFileURL(path.join(ROOT, 'cli/build.js')).href)) as {
    buildIfStale: () => Promise<void>;
  };
  await buildIfStale();
  const samples = { node: [] as number[], help: [] as number[], version: [] as number[] };
  timeMs(['-e', '0']); // warm the file cache
  timeMs([BIN, '--help']);
  for (let i = 0; i < ROUNDS; i++) {
    samples.node.push(timeMs(['-e', '0']));
    samples.help.push(timeMs([BIN, '--help']));
    samples.version.push(timeMs([BIN, '--version']));
  }
  const node = median(samples.node);
  const help = median(samples.help);
  const version = median(samples.version);
  const ratio = Math.max(help, version) / node;
  return [
    {
      name: 'cli_help_over_node',
      value: Number(ratio.toFixed(2)),
      goal: '<= 3',
      met: ratio <= 3,
      command: 'npx tsx bench/figures/cli.ts',
      note: `medians of ${ROUNDS}: node -e 0 ${node.toFixed(0)} ms, --help ${help.toFixed(0)} ms, --version ${version.toFixed(0)} ms (the slower of the two counts)`,
    },
  ];
}

if (process.argv[1] === import.meta.filename) {
  console.log(JSON.stringify(await measure(), null, 2));
}
