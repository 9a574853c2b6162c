import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import { startSandbox, type Sandbox } from '../../sandbox';
import { runCapture } from '../support/cli';

let sandbox: Sandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ profile: 'spec', port: 0 });
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-env-file-'));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `pipes check --json` with its state in the test folder and the settings from `file`. */
const pipesCheck = (flag: string, file: string, state: string) =>
  runCapture(['pipes', 'check', '--json', '--state-file', path.join(dir, state), flag, file]);

/** The sandbox's connection settings as a file, as a person would write them. */
function writeSettings(name: string): string {
  const file = path.join(dir, name);
  const lines = Object.entries(sandboxEnv(sandbox.info)).map(([k, v]) => `${k}=${v}`);
  writeFileSync(file, `# written by the test\n${lines.join('\n')}\n`);
  return file;
}

describe('--settings', () => {
  it('reads the connection settings from a file, for any command', async () => {
    const run = await pipesCheck('--settings', writeSettings('sandbox.env'), 'pipes.json');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { checked: number }).checked).toBe(
      sandbox.info.pipeIds.length,
    );
  });

  it('lets variables already set win over the file', async () => {
    const file = path.join(dir, 'bad-url.env');
    writeFileSync(file, 'CLOUDOPS_API_URL=not a url\n');
    const set = { ...sandboxEnv(sandbox.info) };
    const run = await runCapture(
      ['pipes', 'check', '--json', '--state-file', path.join(dir, 'p2.json'), `--settings=${file}`],
      { env: set },
    );
    expect(run.code).toBe(0);
  });

  it('names a missing file in one line and exits 64 (a setup error, never "changes pending")', async () => {
    const run = await runCapture(['--settings', path.join(dir, 'nope.env'), 'pipes', 'check']);
    expect(run.code).toBe(64);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `cloudops: --settings ${path.join(dir, 'nope.env')}: ENOENT (no such file; \`cloudops sandbox --write-env FILE\` writes one)`,
    ]);
    const folder = await runCapture(['pipes', 'check', '--settings', dir]);
    expect(folder.code).toBe(64);
    expect(folder.stderr).toContain(': EISDIR (a folder; give the settings file)');
  });

  it('still takes the old spelling --env-file where it reaches the CLI', async () => {
    const run = await pipesCheck('--env-file', writeSettings('old-spelling.env'), 'p-old.json');
    expect(run.code).toBe(0);
    const missing = await runCapture(['pipes', 'check', '--env-file', path.join(dir, 'nope.env')]);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toMatch(/^cloudops: --env-file .*nope\.env: ENOENT/);
  });

  it('leaves arguments after `--` to the command', async () => {
    const run = await runCapture(['sandbox', '--', '--settings', path.join(dir, 'nope.env')]);
    expect(run.stderr).not.toContain('ENOENT');
    expect(run.code).toBe(64);
  });
});

describe('cloudops sandbox --write-env', () => {
  /** Serves `cloudops sandbox --write-env FILE` in-process until `stop()`. */
  async function serveWithEnvFile(file: string) {
    const abort = new AbortController();
    const serving = runCapture(['sandbox', '--port', '0', '--write-env', file], {
      signal: abort.signal,
    });
    await expect.poll(() => existsSync(file), { timeout: 10_000 }).toBe(true);
    const env = parseEnv(readFileSync(file, 'utf8'));
    return {
      env,
      stop: async () => {
        abort.abort();
        return (await serving).code;
      },
    };
  }

  it('writes the settings `--settings` reads, so other commands reach the sandbox with no exports', async () => {
    const file = path.join(dir, 'written.env');
    const sandbox = await serveWithEnvFile(file);
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const run = await pipesCheck('--settings', file, 'p3.json');
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as { checked: number }).checked).toBeGreaterThan(0);
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
  });

  it('names the secrets instead of copying the key, so the flow survives `keys rotate` and its grace', async () => {
    const file = path.join(dir, 'rotating.env');
    const sandbox = await serveWithEnvFile(file);
    try {
      expect(sandbox.env.CLOUDOPS_KEY_SECRET_ID).toMatch(/^arn:aws:secretsmanager:/);
      expect(sandbox.env.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID).toMatch(
        /^arn:aws:secretsmanager:/,
      );
      expect(sandbox.env).not.toHaveProperty('CLOUDOPS_KEY_SECRET');
      expect(sandbox.env).not.toHaveProperty('CLOUDOPS_OBSERVABILITY_TOKEN');

      for (const via of ['local', 'secrets-manager']) {
        const rotated = await runCapture([
          'keys',
          'rotate',
          '--json',
          '--via',
          via,
          '--settings',
          file,
        ]);
        expect(rotated.stderr, via).toBe('');
        expect(rotated.code, via).toBe(0);
      }
      // Past the grace period of the replaced keys: a copied key would now get 401.
      const advanced = await fetch(`${sandbox.env.CLOUDOPS_API_URL}/_sandbox/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceMs: 3 * 86_400_000 }),
      });
      expect(advanced.status).toBe(200);
      const after = await pipesCheck('--settings', file, 'p4.json');
      expect(after.stderr).toBe('');
      expect(after.code).toBe(0);
      expect((JSON.parse(after.stdout) as { errors: unknown[] }).errors).toEqual([]);
    } finally {
      expect(await sandbox.stop()).toBe(0);
    }
  });

  it('checks the file can be written before it starts serving', async () => {
    const run = await runCapture(['sandbox', '--write-env', path.join(dir, 'no/such/dir/x.env')]);
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(
      /^cloudops sandbox: --write-env .*x\.env: folder .* does not exist$/m,
    );
  });

  it('rejects a bad --faults spec in one line, before serving', async () => {
    const run = await runCapture(['sandbox', '--faults', 'rate=2']);
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(
      /^cloudops sandbox: --faults "rate=2": .*rate must be between 0 and 1$/m,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
