/**
 * Maps a stack trace that a deployed function logged back to the sources, offline. The
 * functions start without --enable-source-maps (reading the map would slow every cold start),
 * and each bundle's `index.mjs.map` ships beside it: in the function's deployment package and in
 * `cdk.out/asset.<hash>/` of the synth that built it.
 *
 *   npx tsx cdk/decode-stack-trace.ts <index.mjs.map or the folder holding it> < trace.txt
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';

/** Every `index.mjs:<line>:<column>` in `trace` replaced by `<source>:<line>:<column>`. */
function decodeStackTrace(trace: string, map: SourceMap, root = process.cwd()): string {
  return trace.replace(/[^\s(]*index\.mjs:(\d+):(\d+)/g, (frame, line: string, column: string) => {
    const origin = map.findOrigin(Number(line), Number(column));
    if (!('fileName' in origin)) return frame;
    const name = origin.name ? ` (${origin.name})` : '';
    return `${readablePath(origin.fileName, root)}:${origin.lineNumber}:${origin.columnNumber}${name}`;
  });
}

/**
 * Sources are recorded relative to the temporary folder the bundle was built in: shown from
 * the repo root when they exist there, else without the leading `../`.
 */
function readablePath(source: string, root: string): string {
  const parts = source.replace(/^(\.\.\/)+/, '').split('/');
  for (let i = 0; i < parts.length; i++) {
    const candidate = parts.slice(i).join('/');
    if (existsSync(path.join(root, candidate))) return candidate;
  }
  return parts.join('/');
}

function readSourceMap(file: string): SourceMap {
  const mapFile = statSync(file).isDirectory() ? path.join(file, 'index.mjs.map') : file;
  return new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload);
}

if (process.argv[1] === import.meta.filename) {
  const file = process.argv[2];
  if (!file || !existsSync(file)) {
    console.error('usage: npx tsx cdk/decode-stack-trace.ts <index.mjs.map | its folder> < trace');
    process.exit(64);
  }
  let map: SourceMap;
  try {
    map = readSourceMap(file);
  } catch (error) {
    console.error(`${file}: not a source map (${(error as Error).message})`);
    process.exit(1);
  }
  process.stdout.write(decodeStackTrace(readFileSync(0, 'utf8'), map));
}
