import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import { startSandbox, type Sandbox } from '../../sandbox';
import { runCapture } from './helpers';

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

describe('--env-file', () => {
  it('reads the connection settings from a file, for any command', async () => {
    const file = path.join(dir, 'sandbox.env');
    const lines = Object.entries(sandboxEnv(sandbox.info)).map(([k, v]) => `${k}=${v}`);
    writeFileSync(file, `# written by the test\n${lines.join('\n')}\n`);
    const state = path.join(dir, 'pipes.json');
    const run = await runCapture([
      'pipes',
      'check',
      '--json',
      '--state-file',
      state,
      '--env-file',
      file,
    ]);
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
      ['pipes', 'check', '--json', '--state-file', path.join(dir, 'p2.json'), `--env-file=${file}`],
      { env: set },
    );
    expect(run.code).toBe(0);
  });

  it('names a missing file and exits 2', async () => {
    const run = await runCapture(['--env-file', path.join(dir, 'nope.env'), 'pipes', 'check']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--env-file .*nope\.env: ENOENT/);
  });
});

describe('cloudops sandbox --write-env', () => {
  it('writes the settings `--env-file` reads, so other commands reach the sandbox with no exports', async () => {
    const file = path.join(dir, 'written.env');
    const stop = new AbortController();
    const serving = runCapture(['sandbox', '--port', '0', '--write-env', file], {
      signal: stop.signal,
    });
    try {
      await expect.poll(() => existsSync(file), { timeout: 10_000 }).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const run = await runCapture([
        'pipes',
        'check',
        '--json',
        '--state-file',
        path.join(dir, 'p3.json'),
        '--env-file',
        file,
      ]);
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as { checked: number }).checked).toBeGreaterThan(0);
    } finally {
      stop.abort();
      expect((await serving).code).toBe(0);
    }
  });
});
