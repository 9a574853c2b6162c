/**
 * The package as a user gets it: `npm pack` (which builds the bin at prepack), installed with npm
 * into an empty folder, offline. The folder's lockfile is the repo's own resolution of the
 * package's runtime dependencies, so npm installs them from its cache by integrity; then the
 * installed `cloudops` runs the README flow against a sandbox it started itself.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies?: Record<string, string>;
};

let work: string;
let tarball: string;
let packed: string[];
let app: string;
let bin: string;
const children: ChildProcess[] = [];

interface PackEntry {
  filename: string;
  files: { path: string }[];
}

/** A lockfile for `{ cloudops: file:<tarball> }`: the repo's non-dev packages are its runtime tree. */
function lockFor(tgz: string): object {
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; link?: boolean }>;
  };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
  const packages: Record<string, unknown> = {
    '': { name: 'empty', dependencies: { cloudops: `file:${tgz}` } },
    'node_modules/cloudops': {
      version: pkg.version,
      resolved: `file:${tgz}`,
      integrity,
      dependencies: pkg.dependencies ?? {},
      bin: { cloudops: 'dist/cloudops.js' },
    },
  };
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where.startsWith('node_modules/') && !entry.dev && !entry.link) packages[where] = entry;
  }
  return { name: 'empty', lockfileVersion: 3, requires: true, packages };
}

function run(args: string[], options: { cwd?: string } = {}) {
  const result = spawnSync(bin, args, { cwd: options.cwd ?? app, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts `cloudops sandbox` (or `npx cloudops sandbox`) and waits for its JSON line. */
async function startSandbox(command: string, args: string[]) {
  const child = spawn(command, args, { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited early with ${code}`)));
  });
  const info = JSON.parse(first) as { apiUrl: string };
  return { child, info };
}

const accepts = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'cloudops-pack-'));
  // The real `npm pack`: prepack builds dist/ first.
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(pack.status, pack.stderr).toBe(0);
  const [entry] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as PackEntry[];
  tarball = path.join(work, entry.filename);
  packed = entry.files.map((f) => f.path);

  app = path.join(work, 'empty');
  mkdirSync(app);
  // The repo's example dashboards, as a user's own files outside the install.
  cpSync(path.join(ROOT, 'dashboards'), path.join(work, 'repo-dashboards'), { recursive: true });
  // An empty project: nothing but the dependency on the tarball.
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'empty', private: true, dependencies: { cloudops: `file:${tarball}` } }),
  );
  writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(lockFor(tarball)));
  const install = spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund'], {
    cwd: app,
    encoding: 'utf8',
  });
  expect(install.status, install.stderr).toBe(0);
  bin = path.join(app, 'node_modules/.bin/cloudops');
}, 180_000);

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('ships the built bin, LICENSE and CHANGELOG, and no tests or TypeScript sources', () => {
    expect(packed).toEqual(
      expect.arrayContaining(['dist/cloudops.js', 'LICENSE', 'CHANGELOG.md', 'README.md']),
    );
    expect(packed.filter((f) => /(^|\/)test\/|\.test\.|\.ts$/.test(f))).toEqual([]);
    expect(
      packed.filter((f) => !/^(dist\/|dashboards\/|[A-Z]+\.md$|LICENSE$|package\.json$)/.test(f)),
    ).toEqual([]);
  });

  it('ships the source maps --debug reads, and not the build’s own bookkeeping', () => {
    expect(packed).toContain('dist/cloudops.js.map');
    expect(packed.filter((f) => f.startsWith('dist/chunks/') && f.endsWith('.js.map')).length).toBe(
      packed.filter((f) => f.startsWith('dist/chunks/') && f.endsWith('.js')).length,
    );
    expect(packed).not.toContain('dist/inputs.json');
  });

  it('installs into an empty folder and prints its version', () => {
    expect(existsSync(bin)).toBe(true);
    const version = run(['--version']);
    expect(version.stderr).toBe('');
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(pkg.version);
  });

  it('runs the README flow: sandbox --write-env, keys rotate, dashboards plan', async () => {
    const envFile = path.join(app, 'sandbox.env');
    const { child } = await startSandbox(bin, ['sandbox', '--port', '0', '--write-env', envFile]);
    await expect.poll(() => existsSync(envFile), { timeout: 10_000 }).toBe(true);

    const rotated = run(['keys', 'rotate', '--settings', envFile]);
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/^rotated arn:aws:secretsmanager:/m);

    // The example files of the repo; the plan reads the service with the rotated key.
    const plan = run([
      'dashboards',
      'plan',
      '--dir',
      path.join(work, 'repo-dashboards'),
      '--settings',
      envFile,
    ]);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^Plan: \d+ dashboards to create/m);

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('names a missing settings file in one line and exits 64, under either spelling (not Node’s exit 9)', () => {
    for (const flag of ['--settings', '--env-file']) {
      const missing = run(['pipes', 'check', flag, path.join(app, 'nope.env')]);
      expect(missing.code, flag).toBe(64);
      expect(missing.stderr.trim().split('\n'), flag).toEqual([
        `cloudops: ${flag} ${path.join(app, 'nope.env')}: ENOENT (no such file; \`cloudops sandbox --write-env FILE\` writes one)`,
      ]);
    }
  });

  it('--debug prints a stack pointing at the TypeScript sources, from the installed package', () => {
    const result = spawnSync(bin, ['pipes', 'check', '--debug'], {
      cwd: app,
      encoding: 'utf8',
      env: {
        ...process.env,
        CLOUDOPS_API_URL: 'http://127.0.0.1:9',
        CLOUDOPS_KEY_ID: 'KEYID',
        CLOUDOPS_KEY_SECRET: 'not-a-real-secret',
        CLOUDOPS_ORGANIZATION_ID: '5ce9a2a3-619f-4978-9230-a7f56cb1bd8a',
        CLOUDOPS_SERVICE_ID: '5ce9a2a3-619f-4978-9230-a7f56cb1bd8a',
      },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^ {4}at .*cli\/reach\.ts:\d+:\d+\)?$/m);
  });

  it('stops the sandbox started through npx when npx’s PID gets SIGTERM', async () => {
    const { child, info } = await startSandbox('npx', ['--offline', 'cloudops', 'sandbox']);
    expect(await accepts(info.apiUrl)).toBe(true);
    child.kill('SIGTERM');
    await expect.poll(() => accepts(info.apiUrl), { timeout: 5_000 }).toBe(false);
  });
});
