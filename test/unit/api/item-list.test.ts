import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createManagementClient, ResponseValidationError } from '../../../lib/api';
import { dashboard } from '../../../lib/schemas';
import { cannedServerPerTest, type CannedServer } from './canned-server';
import { fakeClock, managementCredentials, ORG, SERVICE } from './fixtures';

let server: CannedServer;
const closers = cannedServerPerTest((s) => (server = s));

const board = (i: number, extra: Record<string, unknown> = {}) => ({
  id: `d${i}`,
  name: `board ${i}`,
  tiles: [{ id: `t${i}`, x: 0, y: 0, w: 6, h: 4, config: { name: `tile ${i}` } }],
  tags: null,
  somethingNew: i,
  ...extra,
});

function management(baseUrl = `${server.url}/mgmt`) {
  const client = createManagementClient({
    baseUrl,
    credentials: managementCredentials(),
    rateLimit: false,
    clock: fakeClock(),
    retry: { maxAttempts: 1 },
  });
  closers.push(client);
  return client;
}

describe('a dashboard list read item by item', () => {
  it('answers what a whole-list parse would: each item parsed, unknown fields kept', async () => {
    server.enqueue({ status: 200, body: { status: 200, result: [board(1), board(2)] } });
    const list = await management().listDashboards(SERVICE);
    expect(server.requests[0].url).toBe(
      `/mgmt/v1/organizations/${ORG}/services/${SERVICE}/observability/dashboards`,
    );
    expect(list).toEqual(z.array(dashboard).parse([board(1), board(2)]));
    expect(list[0]).toMatchObject({ tags: [], somethingNew: 1, tiles: [{ name: 'tile 1' }] });
  });

  it('names every bad item by its place in the answer, never its value', async () => {
    server.enqueue({
      status: 200,
      body: { result: [board(1), board(2, { name: 7 }), board(3, { id: '' })] },
    });
    const error: unknown = await management()
      .listDashboards(SERVICE)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    const message = (error as Error).message;
    expect(message).toMatch(
      /returned an unexpected payload: result\[1\]\.name: .*; result\[2\]\.id: /,
    );
    expect(message).not.toMatch(/board 2/);
  });

  it('an answer that holds no list says where the list was expected', async () => {
    server.enqueue({ status: 200, body: { result: { id: 'd1' } } });
    await expect(management().listDashboards(SERVICE)).rejects.toThrow(
      /unexpected payload: result: .*expected array/,
    );
  });
});

describe('a body streamed in chunks', () => {
  let raw: http.Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (raw ? raw.close(() => resolve()) : resolve())));

  it('decodes a character split across two chunks', async () => {
    const body = Buffer.from(JSON.stringify({ result: [board(1, { name: 'Überblick 📈' })] }));
    const cut = body.indexOf(Buffer.from('📈')) + 2; // inside the 4-byte emoji
    raw = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(body.subarray(0, cut));
      setTimeout(() => res.end(body.subarray(cut)), 20);
    });
    await new Promise<void>((resolve) => raw!.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as AddressInfo;
    const [read] = await management(`http://127.0.0.1:${port}`).listDashboards(SERVICE);
    expect(read.name).toBe('Überblick 📈');
  });

  it('reads a body past its declared length (a compressed answer declares fewer bytes)', async () => {
    const list = Array.from({ length: 50 }, (_, i) =>
      board(i, { name: `board ${i} ${'x'.repeat(200)}` }),
    );
    const zipped = gzipSync(JSON.stringify({ result: list }));
    raw = http.createServer((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': String(zipped.length),
      });
      res.end(zipped);
    });
    await new Promise<void>((resolve) => raw!.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as AddressInfo;
    const read = await management(`http://127.0.0.1:${port}`).listDashboards(SERVICE);
    expect(read).toHaveLength(50);
    expect(read[49].name).toBe(`board 49 ${'x'.repeat(200)}`);
  });
});
