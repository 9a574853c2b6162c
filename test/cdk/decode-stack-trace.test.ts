import { spawnSync } from 'node:child_process';
import { SourceMap } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLING, ESM_REQUIRE_BANNER } from '../../cdk/constructs/function';
import { decodeStackTrace, readSourceMap } from '../../cdk/decode-stack-trace';

const dir = mkdtempSync(path.join(tmpdir(), 'decode-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('decoding a deployed function stack trace offline', () => {
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

    const decoded = decodeStackTrace(run.stderr, readSourceMap(dir), dir);
    expect(decoded).toContain('fails.ts:3:');
    expect(decoded).not.toMatch(/index\.mjs:\d+:\d+/);
  });

  it('leaves a frame it cannot map as it was', () => {
    const map = new SourceMap({
      version: 3,
      file: 'index.mjs',
      sources: [],
      sourcesContent: [],
      names: [],
      mappings: '',
      sourceRoot: '',
    });
    const frame = 'at handler (file:///var/task/index.mjs:9:9)';
    expect(decodeStackTrace(frame, map)).toBe(frame);
  });
});
