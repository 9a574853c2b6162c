import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLING, ESM_REQUIRE_BANNER } from '../../cdk/constructs/function';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'decode-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `npx tsx cdk/decode-stack-trace.ts <map or folder> < trace`, as cdk/README.md shows it. */
const decode = (mapOrFolder: string, trace: string) =>
  spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['cdk/decode-stack-trace.ts', mapOrFolder], {
    cwd: ROOT,
    input: trace,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });

describe('decoding a deployed function stack trace offline (cdk/decode-stack-trace.ts)', () => {
  it('maps a minified bundle frame, logged without --enable-source-maps, to the source line', async () => {
    expect(BUNDLING.sourceMap).toBe(true);
    const entry = path.join(dir, 'fails.ts');
    writeFileSync(
      entry,
      [
        'export function handler(): never {',
        '  const reason = `boom ${Date.now()}`;',
        '  throw new Error(reason);',
        '}',
        'handler();',
      ].join('\n'),
    );
    // As the stack bundles: minified ESM, the banner, the map beside it.
    await build({
      entryPoints: [entry],
      outfile: path.join(dir, 'index.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      minify: true,
      sourcemap: true,
      banner: { js: ESM_REQUIRE_BANNER },
    });
    const run = spawnSync(process.execPath, [path.join(dir, 'index.mjs')], {
      encoding: 'utf8',
      env: {},
    });
    expect(run.stderr).toMatch(/index\.mjs:\d+:\d+/);

    const decoded = decode(dir, run.stderr);
    expect(decoded.status).toBe(0);
    expect(decoded.stdout).toContain('fails.ts:3:');
    expect(decoded.stdout).not.toMatch(/index\.mjs:\d+:\d+/);
  });

  it('names a file that is not a source map in one line, without a stack trace', () => {
    const bad = path.join(dir, 'bad.map');
    writeFileSync(bad, '{');
    const run = decode(bad, 'at handler (file:///var/task/index.mjs:9:9)');
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^.*bad\.map: not a source map/),
    ]);
  });
});
