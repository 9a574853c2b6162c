/**
 * Every command of every shell block of the docs (doc-commands.ts lists the files) runs as
 * written, in a copy of this checkout, as a reader would paste them one by one from its root:
 * each in its own bash, in document order, and each must exit 0. The exceptions (an AWS account,
 * a recursion, a server) are the table in doc-commands.ts, each with its reason; a skipped
 * command shows as skipped with that reason.
 *
 * The copy has the checkout's files (committed or not, minus the ignored ones) and its
 * node_modules, so `npx cloudops` builds and runs the copy's own CLI, as on a fresh clone after
 * `npm ci`. Run with `npm run test:docs` (CI runs it as its own step).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docCommands, DOCS, planFor, type DocCommand } from './doc-commands';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** cdk synth with bundling on a busy 2-core machine can take minutes. */
const COMMAND_TIMEOUT_MS = 300_000;

let run: string;
let checkout: string;

/** The checkout's files as `git` sees them (tracked or new, not ignored), copied with their modes. */
function copyCheckout(to: string): void {
  const listed = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  for (const file of new Set(listed.split('\0').filter(Boolean))) {
    const from = path.join(ROOT, file);
    const stat = statSync(from, { throwIfNoEntry: false });
    if (!stat?.isFile()) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    copyFileSync(from, path.join(to, file));
    chmodSync(path.join(to, file), stat.mode & 0o777);
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(to, 'node_modules'));
}

/**
 * A reader's shell, not this test's: no CLOUDOPS_* / AWS_* settings of the machine, no npm
 * variables of the `npm run` that started the test. npm's cache and global folder are the run's
 * own (npx installs the copy into its cache; `npm install -g` lands in a folder on PATH), and
 * offline: nothing documented needs the registry, so a command that reaches for it fails at
 * once. CDK as CI runs it, with the example settings (the repo commits none, by design).
 */
function readerEnv(): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(
    ([name]) => !/^(CLOUDOPS_|AWS_|npm_|CDK_)/i.test(name),
  );
  return {
    ...Object.fromEntries(kept),
    PATH: `${path.join(run, 'global/bin')}:${process.env.PATH ?? ''}`,
    npm_config_cache: path.join(run, 'npm-cache'),
    npm_config_prefix: path.join(run, 'global'),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    CI: 'true',
    CDK_DISABLE_VERSION_CHECK: '1',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    CLOUDOPS_CDK_CONTEXT_FILE: 'cdk/context.example.json',
  };
}

beforeAll(() => {
  run = mkdtempSync(path.join(tmpdir(), 'cloudops-docs-'));
  checkout = path.join(run, 'checkout');
  copyCheckout(checkout);
}, 120_000);
afterAll(() => {
  if (run) rmSync(run, { recursive: true, force: true });
});

const where = (c: DocCommand) => `${c.file}:${c.line}`;
const tail = (text: string) => text.trimEnd().split('\n').slice(-15).join('\n');

/** Starts a serving command and resolves once it printed its first line (its ready signal). */
async function serve(command: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn('bash', ['-c', `exec ${command}`], {
    cwd: checkout,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', () => resolve());
    child.once('exit', (code) =>
      reject(new Error(`exited with ${code} before serving:\n${tail(stderr)}`)),
    );
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const ALL = docCommands(ROOT);

describe.each(DOCS)('%s', (file) => {
  const commands = ALL.filter((c) => c.file === file);
  const tmp = () => path.join(run, file.replaceAll('/', '_'));
  const servers: ChildProcess[] = [];
  const env = () => readerEnv();

  beforeAll(async () => {
    mkdirSync(tmp(), { recursive: true });
    // A file that uses a sandbox's settings without starting one gets the README's own sandbox.
    const uses = commands.some((c) => c.text.includes('/tmp/sandbox.env'));
    const starts = commands.some((c) => planFor(c.text, tmp()).kind === 'serve');
    if (uses && !starts) {
      servers.push(await serve(`npx cloudops sandbox --write-env ${tmp()}/sandbox.env`, env()));
    }
  }, COMMAND_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all(servers.map(stop));
  });

  for (const command of commands) {
    const plan = planFor(command.text, '/tmp');
    const name = `${where(command)}  ${command.text}`;
    if (plan.kind === 'skip') {
      it.skip(`${name}  — not run: ${plan.why}`, () => {});
      continue;
    }
    it(
      plan.why ? `${name}  — ${plan.why}` : name,
      async () => {
        const current = planFor(command.text, tmp());
        if (current.kind === 'serve') {
          servers.push(await serve(current.command, env()));
          return;
        }
        if (current.kind !== 'run') return;
        const result = spawnSync('bash', ['-c', current.command], {
          cwd: checkout,
          env: env(),
          encoding: 'utf8',
          timeout: COMMAND_TIMEOUT_MS,
          maxBuffer: 64 * 1024 * 1024,
        });
        expect(
          result.status,
          `${where(command)}: \`${current.command}\` exited ${result.status ?? result.signal}\n` +
            `stdout:\n${tail(result.stdout)}\nstderr:\n${tail(result.stderr)}`,
        ).toBe(0);
      },
      COMMAND_TIMEOUT_MS,
    );
  }
});
