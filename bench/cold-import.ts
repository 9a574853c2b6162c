/**
 * Cold import counted in instructions, where wall time on a shared 2-core machine is noise:
 * valgrind's callgrind counts what a fresh `node` (the deployed major) executes to import a
 * bundle, all threads together. V8 runs with --predictable: without it, time-based heuristics
 * (background compile and GC) moved the count of one bundle by up to 4 % between runs on a
 * loaded machine; with it, three runs agree to 0.001 % and the total stays within 1 % of a
 * default run's. The count of the same process importing an empty module is subtracted: what
 * is left is the import itself (read, compile and evaluate the bundle, plus its source map when
 * the stack's NODE_OPTIONS asks for one). Children get an explicit environment, nothing inherited.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Capture } from './capture';
import { median } from './stats';

/** Why instructions cannot be counted here, or undefined when valgrind works. */
export function callgrindMissing(): string | undefined {
  const run = spawnSync('valgrind', ['--version'], { encoding: 'utf8', env: { PATH: pathEnv() } });
  if (run.status === 0) return undefined;
  return `valgrind is not installed (Debian: apt-get install valgrind): ${run.error?.message ?? run.stderr}`;
}

const pathEnv = () => process.env.PATH ?? '/usr/bin:/bin';

export interface ImportCounter {
  /** Instructions to import `bundle` (the empty-module process subtracted). */
  count(bundle: string, env: Record<string, string>, label: string): Promise<number>;
}

/** Writes the import runner and an empty module into `dir`; counts are medians of `rounds`. */
export function importCounter(
  node: string,
  dir: string,
  rounds: number,
  capture: Capture,
): ImportCounter {
  const runner = path.join(dir, 'import-only.mjs');
  writeFileSync(
    runner,
    "import { pathToFileURL } from 'node:url';\nawait import(pathToFileURL(process.argv[2]).href);\n",
  );
  const empty = path.join(dir, 'empty.mjs');
  writeFileSync(empty, 'export {};\n');
  const emptyCounts = new Map<string, Promise<number>>();
  let seq = 0;

  const once = async (bundle: string, env: Record<string, string>, label: string) => {
    const out = path.join(dir, `callgrind.${++seq}.out`);
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${out}`,
        '--log-file=/dev/null',
        node,
        '--predictable',
        runner,
        bundle,
      ],
      { env: { ...env, PATH: pathEnv() }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.setEncoding('utf8').on('data', (t: string) => capture.add(`${label} stdout`, t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => capture.add(`${label} stderr`, t));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`${label}: importing under callgrind exited ${code}`);
    const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(out, 'utf8'))?.[1];
    rmSync(out, { force: true });
    if (!total) throw new Error(`${label}: callgrind wrote no instruction total`);
    return Number(total);
  };
  const medianOf = async (bundle: string, env: Record<string, string>, label: string) => {
    const counts: number[] = [];
    for (let r = 0; r < rounds; r++) counts.push(await once(bundle, env, label));
    return median(counts);
  };
  return {
    async count(bundle, env, label) {
      const key = JSON.stringify(env);
      if (!emptyCounts.has(key)) emptyCounts.set(key, medianOf(empty, env, 'empty module'));
      const [own, base] = await Promise.all([medianOf(bundle, env, label), emptyCounts.get(key)!]);
      return own - base;
    },
  };
}
