/**
 * node-fetch's polyfills are replaced in the function bundles by cdk/bundling-shims/ (BUNDLING's
 * `--alias`). A bundle built with the stack's own esbuild options still makes real HTTP requests
 * over loopback through the API core and the notifiers' POST, refuses in one line what the shims
 * leave out, and carries none of the replaced packages.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWithStackOptions } from '../../bench/bundles';
import { startCannedServer, type CannedServer } from '../unit/api/canned-server';

const ENTRY = path.join(import.meta.dirname, 'bundle-entries/http-calls.ts');
type Bundle = Awaited<ReturnType<typeof buildWithStackOptions>>;

const REPLACED = ['fetch-blob', 'formdata-polyfill', 'data-uri-to-buffer', 'node-domexception'];

/** The packages of `bundle` that left bytes in it. */
function packagesIn(bundle: Bundle): string[] {
  const files = Object.values(bundle.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([file]) => file),
  );
  return [...new Set(files.map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1]))]
    .filter((name): name is string => name !== undefined)
    .sort();
}

describe('a bundle built with the stack options, run against a loopback server', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cloudops-shims-'));
  let server: CannedServer;
  let bundle: Bundle;

  beforeAll(async () => {
    [server, bundle] = await Promise.all([startCannedServer(), buildWithStackOptions(ENTRY, dir)]);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('GETs JSON, POSTs a body, reads a 4xx, and refuses data: URLs and FormData bodies', async () => {
    server.enqueue(
      { body: { data: { id: 'd1', name: 'first' } } },
      { status: 201, body: { data: { id: 'd2', name: 'posted' } } },
      { status: 404, body: { message: 'NOT_FOUND: no dashboard gone' } },
      { status: 204 },
    );
    const { stdout } = await promisify(execFile)(process.execPath, [bundle.file, server.url], {
      env: { PATH: process.env.PATH },
    });
    expect(JSON.parse(stdout)).toEqual({
      got: { id: 'd1', name: 'first' },
      created: { id: 'd2', name: 'posted' },
      missing: 'ApiError 404 NOT_FOUND: no dashboard gone',
      dataUrl:
        'TypeError: a data: URL is not fetched in the function bundles (http and https only)',
      formBody:
        'TypeError: a FormData request body is not supported in the function bundles (they send JSON or text)',
    });
    expect(
      server.requests.map((r) => [r.method, r.url, r.headers['content-type'], r.body]),
    ).toEqual([
      ['GET', '/api/v2/dashboards/d1', undefined, ''],
      ['POST', '/api/v2/dashboards', 'application/json', '{"name":"posted"}'],
      ['GET', '/api/v2/dashboards/gone', undefined, ''],
      ['POST', '/hook', 'application/json', '{"text":"hello"}'],
    ]);
  });

  it('carries node-fetch but none of the polyfills the shims replace', () => {
    const packages = packagesIn(bundle);
    expect(packages).toContain('node-fetch');
    expect(packages.filter((name) => REPLACED.includes(name))).toEqual([]);
  });
});
