/**
 * The exit-code contract in every path (DESIGN.md): 64 for usage and setup errors (never 2, which
 * CI scripts read as "changes pending"), 130 for Ctrl-C wherever it lands: at the apply prompt,
 * in the middle of a request, in a command that reports failures itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnvFile, EXAMPLE_WEBHOOK_VARS } from '../../cli/connect';
import type { Sandbox } from '../../sandbox';
import { runCli } from '../../cli/cli';
import { runCapture } from '../support/cli';
import { startTestSandbox } from '../support/sandbox';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = path.join(ROOT, 'dist/cloudops.js');
const ORG = '5ce9a2a3-619f-4978-9230-a7f56cb1bd8a';
const SERVICE = '9019249e-62a7-4be3-85eb-942eb22c75b1';

let dir: string;
let sandbox: Sandbox;
let settings: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  const build = (await import(pathToFileURL(path.join(ROOT, 'cli/build.js')).href)) as {
    buildIfStale: () => Promise<void>;
  };
  await build.buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-exit-'));
  sandbox = await startTestSandbox({ profile: 'current' });
  settings = path.join(dir, 'sandbox.env');
  const lines = Object.entries(sandboxEnvFile(sandbox.info)).map(([k, v]) => `${k}=${v}`);
  writeFileSync(settings, `${lines.join('\n')}\n`);
}, 120_000);
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('usage and setup errors exit 64, never 2', () => {
  it('plan --detailed-exitcode with a missing settings file', async () => {
    const args = ['dashboards', 'plan', '--dir', 'dashboards', '--detailed-exitcode'];
    const run = await runCapture([...args, '--settings', path.join(dir, 'nope.env')]);
    expect(run.code).toBe(64);
    expect(run.stdout).toBe('');
  });

  it('plan --detailed-exitcode with no settings at all names what to set', async () => {
    const run = await runCapture(
      ['dashboards', 'plan', '--dir', 'dashboards', '--detailed-exitcode'],
      {
        env: { CLOUDOPS_VAR_WEBHOOK_ID: 'x', ...EXAMPLE_WEBHOOK_VARS },
      },
    );
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/^cloudops dashboards: ConfigError: .*set CLOUDOPS_SERVICE_ID/m);
  });

  it('a bad setting value, before anything is called', async () => {
    const run = await runCapture(['pipes', 'check'], { env: { CLOUDOPS_API_URL: 'not a url' } });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('CLOUDOPS_API_URL');
  });
});

/** Runs the built bin; `onOutput` sees stdout so far and may act on it (send Ctrl-C). */
function spawnBin(
  command: string,
  args: string[],
  env: Record<string, string>,
  onOutput?: (out: string, child: ChildProcess) => void,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(command, args, { env: { ...process.env, ...env } });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    onOutput?.(out, child);
  });
  child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

describe('Ctrl-C exits 130', () => {
  it('at the apply prompt (a terminal, where readline reads the key itself)', async () => {
    // `script` gives the bin a pseudo-terminal: apply asks, and Ctrl-C is typed, not signalled.
    const line = `'${process.execPath}' '${ENTRY}' dashboards apply --dir dashboards --settings '${settings}'`;
    let typed = false;
    const run = await spawnBin('script', ['-qfec', line, '/dev/null'], {}, (out, child) => {
      if (!typed && out.includes('Only "yes" applies')) {
        typed = true;
        child.stdin!.write('\x03');
      }
    });
    expect(typed).toBe(true);
    expect(run.out).toContain('cloudops dashboards: interrupted');
    expect(run.out).not.toContain('unexpected failure');
    expect(run.code).toBe(130);
  }, 60_000);

  describe('in the middle of a request', () => {
    let server: Server;
    let url: string;
    let arrived: () => void;
    let requestArrived: Promise<void>;

    beforeAll(async () => {
      // Accepts every request and never answers: the command waits inside its request.
      server = createServer(() => arrived());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    const env = () => ({
      CLOUDOPS_API_URL: url,
      CLOUDOPS_OBSERVABILITY_URL: url,
      CLOUDOPS_ORGANIZATION_ID: ORG,
      CLOUDOPS_SERVICE_ID: SERVICE,
      CLOUDOPS_KEY_ID: 'KEYIDKEYID',
      CLOUDOPS_KEY_SECRET: 'not-a-real-key-secret',
      CLOUDOPS_VAR_WEBHOOK_ID: '6b07d35a82fb6adb7c2e1e75',
      ...EXAMPLE_WEBHOOK_VARS,
    });

    it.each([
      [
        'pipes check (which reports failed services itself)',
        ['pipes', 'check', '--state-file', 'STATE'],
      ],
      ['dashboards plan', ['dashboards', 'plan', '--dir', 'dashboards']],
      ['doctor', ['doctor']],
    ])(
      '%s',
      async (_name, args) => {
        requestArrived = new Promise((resolve) => (arrived = resolve));
        const argv = args.map((a) => (a === 'STATE' ? path.join(dir, 'pipes.json') : a));
        const running = spawnBin(process.execPath, [ENTRY, ...argv], env());
        await requestArrived;
        children.at(-1)!.kill('SIGINT');
        const run = await running;
        expect(run.err).not.toContain('unexpected failure');
        expect(run.code).toBe(130);
      },
      30_000,
    );
  });

  it('between the steps of a key rotation, which the next run finishes', async () => {
    const own = await startTestSandbox({ profile: 'current' });
    try {
      const env = { ...sandboxEnvFile(own.info), CLOUDOPS_LOG_LEVEL: 'silent' };
      const abort = new AbortController();
      const lines: string[] = [];
      const code = await runCli(
        ['keys', 'rotate'],
        {
          out: (text) => {
            lines.push(text);
            if (text.includes('createSecret')) abort.abort(new Error('received SIGINT'));
          },
          err: (text) => void lines.push(text),
          env,
          isTTY: false,
        },
        abort.signal,
      );
      expect(code).toBe(130);
      expect(lines).toEqual(['  createSecret', 'cloudops keys: interrupted']);

      const again = await runCapture(['keys', 'rotate', '--json'], { env });
      expect(again.stderr).toBe('');
      expect(again.code).toBe(0);
      // The same rotation, resumed by its token: one new key, not two.
      const keys = own.requestLog
        .entries()
        .filter((e) => e.method === 'POST' && e.path.endsWith('/keys'));
      expect(keys).toHaveLength(1);
    } finally {
      await own.close();
    }
  });

  it('in-process: an aborted run reports the interrupt once', async () => {
    const abort = new AbortController();
    abort.abort(new Error('received SIGINT'));
    const run = await runCapture(['doctor', '--settings', settings], { signal: abort.signal });
    expect(run.code).toBe(130);
    expect(run.stderr).toBe('cloudops doctor: interrupted\n');
  });
});
