/**
 * The metrics calls: a text/plain 200 read into a typed reading, and everything else the HTTP core
 * does for JSON calls (error envelopes, HTML pages, retries, the size cap, the rate limiter),
 * against a real HTTP server answering canned responses.
 */
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createManagementClient,
  isNotFound,
  RateLimiterRegistry,
  ResponseTooLargeError,
  ResponseValidationError,
  ServiceIdleError,
  UnexpectedResponseError,
  type ManagementClientOptions,
} from '../../../lib/api';
import { caught } from '../../support/caught';
import { IDLE, ORGANIZATION, RUNNING, SERVICE as SAMPLE_SERVICE } from '../metrics/samples';
import { cannedServerPerTest, fail, ok, type Canned, type CannedServer } from './canned-server';
import { cannedClientOptions, fakeClock, ORG, pipeRecord, PIPE, SERVICE } from './fixtures';

let server: CannedServer;
const clients = cannedServerPerTest((s) => (server = s));

function client(overrides: Partial<ManagementClientOptions> = {}) {
  const c = createManagementClient({ ...cannedClientOptions(server.url), ...overrides });
  clients.push(c);
  return c;
}

const TEXT = 'text/plain; version=0.0.4; charset=utf-8';
const metrics = (body: string, status = 200): Canned => ({
  status,
  headers: { 'content-type': TEXT },
  body,
});
const html = (status: number, body: string): Canned => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body,
});
const servicePath = `/v1/organizations/${ORG}/services/${SAMPLE_SERVICE}/prometheus`;

describe('reading a service’s metrics', () => {
  it('sends one Basic-auth GET asking for text and returns the typed reading', async () => {
    const c = client();
    server.enqueue(metrics(RUNNING));
    const reading = await c.getServiceMetrics(SAMPLE_SERVICE);
    expect(reading).toMatchObject({ serviceId: SAMPLE_SERVICE, observed: true });
    expect(reading.pipes.map((p) => p.state)).toEqual(['Running', 'Running']);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.url).toBe(servicePath);
    expect(request.headers.authorization).toMatch(/^Basic /);
    expect(request.headers.accept).toBe('text/plain, application/json');
  });

  it('asks filtered_metrics only when told to', async () => {
    const c = client();
    server.enqueue(metrics(IDLE), metrics(IDLE), metrics(IDLE));
    await c.getServiceMetrics(SAMPLE_SERVICE, { filteredMetrics: true });
    await c.getServiceMetrics(SAMPLE_SERVICE, { filteredMetrics: false });
    await c.getServiceMetrics(SAMPLE_SERVICE);
    expect(server.requests.map((r) => r.url)).toEqual([
      `${servicePath}?filtered_metrics=true`,
      `${servicePath}?filtered_metrics=false`,
      servicePath,
    ]);
  });

  it('reads an idle service’s answer as not observed', async () => {
    const c = client();
    server.enqueue(metrics(IDLE));
    expect(await c.getServiceMetrics(SAMPLE_SERVICE)).toMatchObject({
      clusterStatus: 'idle',
      observed: false,
      pipes: [],
    });
  });

  it('reads every service of the organization in one request', async () => {
    const c = client();
    server.enqueue(metrics(ORGANIZATION));
    const readings = await c.getOrganizationMetrics({ filteredMetrics: true });
    expect(readings.map((r) => r.clusterStatus)).toEqual(['running', 'idle']);
    expect(server.requests.map((r) => r.url)).toEqual([
      `/v1/organizations/${ORG}/prometheus?filtered_metrics=true`,
    ]);
  });
});

describe('what is not a metrics answer', () => {
  it('a malformed line is a ResponseValidationError naming the line, never retried', async () => {
    const c = client();
    server.enqueue(metrics('ClickHouse_ServiceInfo{scrape="full" 1\n'));
    const error = await caught(c.getServiceMetrics(SAMPLE_SERVICE));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.message).toBe(
      `GET ${servicePath} returned an unexpected text: metrics text line 1, column 38: ` +
        'expected "," or "}" after the value of label scrape, found "1"',
    );
    expect((error as ResponseValidationError).issues).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it('a 200 HTML page or JSON body is an UnexpectedResponseError, not an empty reading', async () => {
    const c = client();
    server.enqueue(html(200, '<html><body>Sign in</body></html>'), ok({ pipes: [] }));
    for (const expected of ['text/html', 'application/json']) {
      const error = await caught(c.getServiceMetrics(SAMPLE_SERVICE));
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(error.message).toContain('not the text/plain it should be');
      expect((error as UnexpectedResponseError).contentType).toContain(expected);
    }
    expect(server.requests).toHaveLength(2);
  });

  it('a JSON error envelope is an ApiError with its code; a missing service is not found', async () => {
    const c = client();
    server.enqueue(fail(404, 'NOT_FOUND: service not found'));
    const error = await caught(c.getServiceMetrics(SERVICE));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(isNotFound(error)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('the gateway’s HTML 404 (a path it does not serve) is typed and is not "not found"', async () => {
    const c = client();
    server.enqueue(html(404, `<pre>Cannot GET ${servicePath}</pre>`));
    const error = await caught(c.getServiceMetrics(SAMPLE_SERVICE));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(isNotFound(error)).toBe(false);
    expect(error.message).toContain('Cannot GET');
  });

  it('a 424 for an idle service becomes a ServiceIdleError', async () => {
    const c = client();
    server.enqueue(fail(424, 'FAILED_DEPENDENCY: Current state: idle'));
    expect(await caught(c.getServiceMetrics(SERVICE))).toBeInstanceOf(ServiceIdleError);
  });

  it('a body over the response cap stops with ResponseTooLargeError', async () => {
    const c = client({ maxResponseBytes: 1000 });
    server.enqueue(metrics(RUNNING));
    const error = await caught(c.getServiceMetrics(SAMPLE_SERVICE));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('retries and rate limits, as for JSON calls', () => {
  it('an HTML 504 and a reset are retried, then the answer is read', async () => {
    const c = client();
    server.enqueue(
      html(504, '<html><head><title>504 Gateway Time-out</title></head></html>'),
      { reset: true },
      metrics(IDLE),
    );
    expect((await c.getServiceMetrics(SAMPLE_SERVICE)).clusterStatus).toBe('idle');
    expect(server.requests).toHaveLength(3);
  });

  it('a 429 waits for X-RateLimit-Reset, then reads', async () => {
    const clock = fakeClock();
    const c = client({ clock });
    server.enqueue(
      {
        ...fail(429, 'TOO_MANY_REQUESTS: slow down'),
        headers: { 'x-ratelimit-reset': '7' },
      },
      metrics(IDLE),
    );
    expect((await c.getServiceMetrics(SAMPLE_SERVICE)).observed).toBe(false);
    expect(clock.sleeps.some((ms) => ms >= 7000)).toBe(true);
  });

  it('metrics calls spend the same key’s budget as pipe calls: the 11th call in 10 s waits', async () => {
    const clock = fakeClock();
    const c = client({
      clock,
      rateLimit: { limit: 10, windowMs: 10_000 },
      limiters: new RateLimiterRegistry(clock),
    });
    for (let i = 0; i < 5; i++) server.enqueue(ok(pipeRecord), metrics(IDLE));
    server.enqueue(metrics(IDLE));
    for (let i = 0; i < 5; i++) {
      await c.getPipe(SERVICE, PIPE);
      await c.getServiceMetrics(SAMPLE_SERVICE);
    }
    expect(clock.sleeps).toEqual([]);
    await c.getServiceMetrics(SAMPLE_SERVICE);
    expect(clock.sleeps.some((ms) => ms >= 1000)).toBe(true);
    expect(server.requests).toHaveLength(11);
  });
});
