/**
 * One name per meaning, the old spellings kept: `dashboards pull --target` (as in plan and
 * apply; `--key` was pull's name) and `sandbox --state-file` (`--state` was its name) do what the
 * old names did.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv, EXAMPLE_WEBHOOK_VARS } from '../../cli/connect';
import type { Sandbox } from '../../sandbox';
import { runCapture } from '../support/cli';
import { startTestSandbox } from '../support/sandbox';

let sandbox: Sandbox;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startTestSandbox({ profile: 'current' });
  env = {
    ...sandboxEnv(sandbox.info),
    CLOUDOPS_VAR_WEBHOOK_ID: sandbox.info.webhookId,
    ...EXAMPLE_WEBHOOK_VARS,
    CLOUDOPS_LOG_LEVEL: 'silent',
    // The test sandbox allows this; the service's own 10 / 10 s would make the pulls wait.
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
  };
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-aliases-'));
  const applied = await runCapture(
    ['dashboards', 'apply', '--dir', 'dashboards', '--auto-approve'],
    { env },
  );
  expect(applied.code).toBe(0);
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The files a pull wrote, relative to its folder. */
/** The files pull wrote (a key with a folder in it makes that folder too). */
const filesIn = (folder: string) =>
  readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();

describe('dashboards pull', () => {
  it.each(['--target', '--key'])('%s KEY pulls only the dashboard with that key', async (flag) => {
    const all = await runCapture(['dashboards', 'pull', '--dir', path.join(dir, `all${flag}`)], {
      env,
    });
    expect(all.code).toBe(0);
    const pulled = [...all.stdout.matchAll(/^wrote (\S+)\.yaml \("([^"]+)"\)$/gm)];
    expect(pulled.length).toBeGreaterThan(1);
    const [, key, name] = pulled[0];

    const into = path.join(dir, `one${flag}`);
    const run = await runCapture(['dashboards', 'pull', '--dir', into, flag, key], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Pulled 1 dashboard\(s\)/m);
    expect(run.stdout).toContain(`("${name}")`);
    expect(filesIn(into)).toEqual([`${key}.yaml`]);
  });
});

describe('cloudops sandbox', () => {
  it.each(['--state-file', '--state'])('%s FILE keeps the state there', async (flag) => {
    const file = path.join(dir, `state${flag}.json`);
    const abort = new AbortController();
    const serving = runCapture(['sandbox', '--port', '0', flag, file], { signal: abort.signal });
    await expect.poll(() => existsSync(file), { timeout: 10_000 }).toBe(true);
    abort.abort();
    expect((await serving).code).toBe(0);
  });
});
