/**
 * The ways people start the CLI from a clone: `npx cloudops` (the package's own bin, run by npm's
 * Node) and `node dist/cloudops.js`. Each must survive a rebuild and give our one-line error for
 * a missing settings file (the installed bin is covered in pack.test.ts). Node 20 claims
 * `--env-file` anywhere in its argv, which is why the settings flag is `--settings`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = path.join(ROOT, 'dist/cloudops.js');
const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

interface BuildModule {
  build(options?: { outdir?: string }): Promise<unknown>;
  buildIfStale(): Promise<void>;
}
let builder: BuildModule;
let work: string;

beforeAll(async () => {
  builder = (await import(pathToFileURL(path.join(ROOT, 'cli/build.js')).href)) as BuildModule;
  await builder.buildIfStale();
  work = mkdtempSync(path.join(tmpdir(), 'cloudops-launchers-'));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** npm 11 warns about a user-config key on every run; not ours. */
const withoutNpmNoise = (text: string) =>
  text
    .split('\n')
    .filter((line) => !line.startsWith('npm warn'))
    .join('\n');

/** npx with its own cache folder: the package's npx install never lands in the user's cache. */
function npx(cwd: string, args: string[]) {
  const result = spawnSync('npx', ['--offline', 'cloudops', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_cache: path.join(work, 'npm-cache') },
  });
  return { code: result.status, stdout: result.stdout, stderr: withoutNpmNoise(result.stderr) };
}

const MISSING = (flag: string, file: string) =>
  `cloudops: ${flag} ${file}: ENOENT (no such file; \`cloudops sandbox --write-env FILE\` writes one)`;

describe('after a rebuild', () => {
  it('the bin keeps its execute bit, so `npx cloudops` still runs it', async () => {
    // A copy of the package (its manifest and a build) keeps the repo's dist/ intact for the
    // tests running beside this one. Without scripts: npx installs the package into its cache
    // once (running `prepare` there) and runs that same folder's bin on every later call.
    const copy = mkdtempSync(path.join(work, 'package-'));
    const { scripts: _scripts, ...manifest } = JSON.parse(
      readFileSync(path.join(ROOT, 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    writeFileSync(path.join(copy, 'package.json'), JSON.stringify(manifest));
    const outdir = path.join(copy, 'dist');
    await builder.build({ outdir });
    expect(npx(copy, ['--version']).code).toBe(0);

    // The rebuild `npm test`, `npm run build`, `npm pack` or `node cli/cloudops.js` makes.
    await builder.build({ outdir });
    const bin = path.join(outdir, 'cloudops.js');
    expect(statSync(bin).mode & 0o777).toBe(0o755);
    const run = npx(copy, ['--version']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(version);

    // What the bit is for: without it npx cannot start the bin at all.
    chmodSync(bin, 0o644);
    const broken = npx(copy, ['--version']);
    expect(broken.code).toBe(127);
    expect(broken.stderr).toMatch(/Permission denied/);
  }, 120_000);

  it('a bin without its execute bit counts as stale, so `node cli/cloudops.js` rebuilds it', async () => {
    const build = (await import(pathToFileURL(path.join(ROOT, 'cli/build.js')).href)) as {
      isStale(): boolean;
    };
    expect(build.isStale()).toBe(false);
    chmodSync(ENTRY, 0o644);
    try {
      expect(build.isStale()).toBe(true);
    } finally {
      chmodSync(ENTRY, 0o755);
    }
  });
});

describe('a missing settings file is our one-line error, exit 64, under every launcher', () => {
  it('npx cloudops', () => {
    const file = path.join(work, 'nope.env');
    const run = npx(ROOT, [
      'dashboards',
      'plan',
      '--dir',
      'dashboards',
      '--detailed-exitcode',
      '--settings',
      file,
    ]);
    expect(run.code).toBe(64);
    expect(run.stderr.trim().split('\n')).toEqual([MISSING('--settings', file)]);
    expect(run.stdout).toBe('');
  });

  it('node dist/cloudops.js', () => {
    const file = path.join(work, 'nope.env');
    const run = spawnSync(process.execPath, [ENTRY, 'pipes', 'check', '--settings', file], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(64);
    expect(run.stderr.trim().split('\n')).toEqual([MISSING('--settings', file)]);
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('--debug', () => {
  it('prints a stack trace that points at the TypeScript sources; without it, one line', async () => {
    const env = {
      ...process.env,
      CLOUDOPS_API_URL: `http://127.0.0.1:${await closedPort()}`,
      CLOUDOPS_KEY_ID: 'KEYID',
      CLOUDOPS_KEY_SECRET: 'not-a-real-secret',
      CLOUDOPS_ORGANIZATION_ID: '5ce9a2a3-619f-4978-9230-a7f56cb1bd8a',
      CLOUDOPS_SERVICE_ID: '5ce9a2a3-619f-4978-9230-a7f56cb1bd8a',
    };
    const args = [ENTRY, 'pipes', 'check', '--state-file', path.join(work, 'p.json')];
    const debug = spawnSync(process.execPath, [...args, '--debug'], { encoding: 'utf8', env });
    expect(debug.status).toBe(1);
    expect(debug.stderr).toMatch(/^ {4}at .*cli\/reach\.ts:\d+:\d+\)?$/m);

    const plain = spawnSync(process.execPath, args, { encoding: 'utf8', env });
    expect(plain.status).toBe(1);
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    expect(plain.stderr).not.toMatch(/\.ts:\d+/);
  });
});
