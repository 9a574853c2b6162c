import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createManagementClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  RateLimiterRegistry,
  RateLimitedError,
  ResponseTooLargeError,
  type ManagementClientOptions,
} from '../../../lib/api';
import { caught } from '../../support/caught';
import { cannedServerPerTest, fail, ok, type CannedServer } from './canned-server';
import { fakeClock, managementCredentials, pipeRecord, PIPE, SERVICE } from './fixtures';

const MiB = 1024 * 1024;

/** Streams `totalBytes` of a JSON-looking body in 1 MiB chunks, honouring backpressure. */
async function hugeBodyServer(totalBytes: number, opts: { status?: number; declare?: boolean }) {
  const stats = { requests: 0, bytesWritten: 0, closedEarly: false };
  const chunk = Buffer.alloc(MiB, 'a');
  chunk.write('{"status":200,"requestId":"r","result":"');
  const server = http.createServer((req, res) => {
    stats.requests += 1;
    res.writeHead(opts.status ?? 200, {
      'content-type': 'application/json',
      ...(opts.declare ? { 'content-length': String(totalBytes) } : {}),
    });
    res.on('close', () => {
      if (stats.bytesWritten < totalBytes) stats.closedEarly = true;
    });
    const pump = () => {
      while (stats.bytesWritten < totalBytes && !res.destroyed) {
        stats.bytesWritten += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function clientFor(url: string, overrides: Partial<ManagementClientOptions> = {}) {
  const c = createManagementClient({
    baseUrl: url,
    credentials: managementCredentials(),
    rateLimit: false,
    clock: fakeClock(),
    random: () => 0,
    timeoutMs: 30_000,
    ...overrides,
  });
  closers.push(() => c.close());
  return c;
}

describe('response size cap', () => {
  it('a 700 MiB body stops at the default cap: typed error naming the request, memory bounded, read once', async () => {
    const server = await hugeBodyServer(700 * MiB, {});
    closers.push(server.close);
    const c = clientFor(server.url);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const error = await caught(c.listPipes(SERVICE));
    const rssGrowth = process.memoryUsage().rss - rssBefore;

    expect(error).toBeInstanceOf(ResponseTooLargeError);
    const tooLarge = error as ResponseTooLargeError;
    expect(tooLarge.message).toMatch(
      new RegExp(`^GET /v1/organizations/.+/services/${SERVICE}/pipes answered 200`),
    );
    expect(tooLarge.limitBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(tooLarge.bytesRead).toBeGreaterThan(DEFAULT_MAX_RESPONSE_BYTES);
    expect(tooLarge.bytesRead).toBeLessThanOrEqual(DEFAULT_MAX_RESPONSE_BYTES + 2 * MiB);
    expect(tooLarge.retryable).toBe(false);
    // Never retried: one request, and the server saw the connection drop long before the end.
    expect(server.stats.requests).toBe(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.stats.closedEarly).toBe(true);
    expect(server.stats.bytesWritten).toBeLessThan(128 * MiB);
    expect(rssGrowth).toBeLessThan(256 * MiB);
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('a declared Content-Length over the cap fails before reading the body', async () => {
    const server = await hugeBodyServer(64 * MiB, { declare: true });
    closers.push(server.close);
    const c = clientFor(server.url, { maxResponseBytes: 4 * MiB });
    const error = await caught(c.listPipes(SERVICE));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ declaredBytes: 64 * MiB, bytesRead: 0, limitBytes: 4 * MiB });
    expect(error.message).toContain('declares 67108864 bytes');
  });

  it('the cap is configurable and applies to error bodies too (a huge 503 is not retried)', async () => {
    const server = await hugeBodyServer(8 * MiB, { status: 503 });
    closers.push(server.close);
    const c = clientFor(server.url, { maxResponseBytes: MiB });
    const error = await caught(c.listPipes(SERVICE));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ status: 503, limitBytes: MiB });
    expect(server.stats.requests).toBe(1);
  });
});

describe('rate-limit resets beyond the deadline', () => {
  let server: CannedServer;
  const clients = cannedServerPerTest((s) => (server = s));

  it('a 429 whose reset exceeds the deadline fails at once with RateLimitedError', async () => {
    const clock = fakeClock();
    const c = createManagementClient({
      baseUrl: server.url,
      credentials: managementCredentials(),
      rateLimit: false,
      clock,
      deadlineMs: 5_000,
    });
    clients.push(c);
    server.enqueue({
      ...fail(429, 'TOO_MANY_REQUESTS: slow down'),
      headers: { 'x-ratelimit-reset': '30' },
    });
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ status: 429, resetMs: 30_000, remainingMs: 5_000 });
    expect(error.message).toMatch(/is rate limited for 30 s, longer than the 5 s left/);
    expect(clock.sleeps).toEqual([]);
  });

  it('a later request on the paused bucket fails at once instead of waiting out the reset', async () => {
    const clock = fakeClock();
    const limiters = new RateLimiterRegistry(clock);
    const credentials = managementCredentials();
    const c = createManagementClient({
      baseUrl: server.url,
      credentials,
      rateLimit: { limit: 100, windowMs: 1000 },
      limiters,
      clock,
      deadlineMs: 5_000,
    });
    clients.push(c);
    server.enqueue(
      { ...fail(429, 'TOO_MANY_REQUESTS: x'), headers: { 'x-ratelimit-reset': '30' } },
      ok(pipeRecord),
    );
    await caught(c.getPipe(SERVICE, PIPE));
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).resetMs).toBe(30_000);
    expect(clock.sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
    // Within the deadline the bucket is simply waited for.
    clock.advance(26_000);
    await expect(c.getPipe(SERVICE, PIPE)).resolves.toMatchObject({ id: PIPE });
    expect(clock.sleeps).toEqual([4_000]);
  });
});
