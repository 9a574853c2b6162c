/**
 * The built bin (what the package ships): `--help` and `--version` load the small entry only,
 * and each command loads its own modules, not the others'.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIST = path.join(ROOT, 'dist');
const ENTRY = path.join(DIST, 'cloudops.js');

beforeAll(async () => {
  const build = (await import(pathToFileURL(path.join(ROOT, 'cli/build.js')).href)) as {
    buildIfStale: () => Promise<void>;
  };
  await build.buildIfStale();
}, 120_000);

/** Every file a module imports statically, transitively (dynamic `import()` not followed). */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, spec] of text.matchAll(
    /(?:^|[;}\s])import\s*(?:[^"'();]*?from\s*)?["'](\.[^"']+)["']/g,
  )) {
    staticClosure(path.resolve(path.dirname(file), spec), seen);
  }
  return seen;
}

const commandChunk = (name: string) => {
  const file = readdirSync(path.join(DIST, 'chunks')).find((f) => f.startsWith(`${name}-`));
  if (!file) throw new Error(`no chunk for ${name}`);
  return path.join(DIST, 'chunks', file);
};

describe('the built bin', () => {
  it('starts from a small entry that loads no command module', () => {
    const closure = [...staticClosure(ENTRY)];
    const bytes = closure.reduce((sum, f) => sum + statSync(f).size, 0);
    expect(bytes).toBeLessThan(30_000);
    for (const name of ['demo', 'sandbox', 'dashboards', 'alerts', 'pipes', 'keys']) {
      expect(closure).not.toContain(commandChunk(name));
    }
  });

  it('loads for `pipes` neither the sandbox nor the demo', () => {
    const closure = staticClosure(commandChunk('pipes'));
    expect(closure).not.toContain(commandChunk('sandbox'));
    expect(closure).not.toContain(commandChunk('demo'));
  });

  it('answers --version and --help without TypeScript tooling', () => {
    const version = spawnSync(process.execPath, [ENTRY, '--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    const { version: expected } = JSON.parse(
      readFileSync(path.join(ROOT, 'package.json'), 'utf8'),
    ) as { version: string };
    expect(version.stdout.trim()).toBe(expected);
    const help = spawnSync(process.execPath, [ENTRY, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: cloudops <command>/);
    expect(readFileSync(ENTRY, 'utf8')).not.toMatch(/\btsx\b/);
  });
});
