import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createManagementClient,
  RateLimiterRegistry,
  ResponseValidationError,
  TransportError,
  UnexpectedResponseError,
  isNotFound,
  type ManagementClientOptions,
} from '../../../lib/api';
import { ValidationError } from '../../../lib/errors';
import type { CreateKeyRequest } from '../../../lib/schemas';
import { createLogger } from '../../../lib/log';
import {
  cannedServerPerTest,
  startCannedServer,
  ok,
  fail,
  type CannedServer,
} from './canned-server';
import {
  alertBody,
  fakeClock,
  managementCredentials,
  pipeRecord,
  ORG,
  PIPE,
  SERVICE,
  KEY_RECORD,
} from './fixtures';
import { caught } from '../../support/caught';

let server: CannedServer;
const clients = cannedServerPerTest((s) => (server = s));

const pipePath = `/v1/organizations/${ORG}/services/${SERVICE}/pipes/${PIPE}`;

function client(overrides: Partial<ManagementClientOptions> = {}) {
  const credentials = managementCredentials();
  const clock = fakeClock();
  const c = createManagementClient({
    baseUrl: server.url,
    credentials,
    rateLimit: false,
    clock,
    random: () => 0,
    timeoutMs: 2_000,
    ...overrides,
  });
  clients.push(c);
  return { c, credentials, clock };
}

describe('envelopes and requests', () => {
  it('unwraps result, sends Basic auth for the credential and the org from the credential', async () => {
    const { c, credentials } = client();
    server.enqueue(ok(pipeRecord));
    const got = await c.getPipe(SERVICE, PIPE);
    expect(got).toMatchObject({ id: PIPE, state: 'Running' });
    const [req] = server.requests;
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe(pipePath);
    const { keyId, keySecret } = credentials.current();
    expect(req?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}`,
    );
    expect(req?.headers['content-type']).toBeUndefined();
  });

  it('builds every management path and sends JSON bodies with Content-Type', async () => {
    const { c } = client();
    const dash = { id: 'd1', name: 'Pipes', tiles: [], tags: [] };
    const alertRecord = { id: 'a1', name: 'lag' };
    const key = { id: KEY_RECORD, name: 'k', roles: ['admin'], keySuffix: 'ABCD' };
    server.enqueue(
      ok({ streaming_max_insert_wait_ms: 500 }),
      ok([pipeRecord]),
      ok(),
      ok(pipeRecord),
      ok([key]),
      ok(key),
      ok(key),
      ok(),
      ok([dash]),
      ok(dash),
      ok(dash),
      ok(dash),
      ok(),
      ok([alertRecord]),
      ok(alertRecord),
      ok(alertRecord),
      ok(alertRecord),
      ok(),
      ok([{ id: 'src1', name: 'events' }]),
    );
    expect(await c.getPipeSettings(SERVICE, PIPE)).toEqual({ streaming_max_insert_wait_ms: 500 });
    expect(await c.listPipes(SERVICE)).toHaveLength(1);
    await c.deletePipe(SERVICE, PIPE);
    expect(await c.pipeStateCommand(SERVICE, PIPE, 'stop')).toMatchObject({ id: PIPE });
    expect(await c.listKeys()).toHaveLength(1);
    expect(await c.getKey(KEY_RECORD)).toMatchObject({ keySuffix: 'ABCD', expireAt: null });
    await c.updateKey(KEY_RECORD, { state: 'disabled' });
    await c.deleteKey(KEY_RECORD);
    expect(await c.listDashboards(SERVICE)).toEqual([dash]);
    await c.createDashboard(SERVICE, { name: 'Pipes' });
    await c.getDashboard(SERVICE, 'd1');
    await c.updateDashboard(SERVICE, 'd1', { name: 'Pipes 2' });
    await c.deleteDashboard(SERVICE, 'd1');
    await c.listAlerts(SERVICE);
    await c.createAlert(SERVICE, alertBody);
    await c.getAlert(SERVICE, 'a1');
    await c.updateAlert(SERVICE, 'a1', { threshold: 6 });
    await c.deleteAlert(SERVICE, 'a1');
    expect(await c.listSources(SERVICE)).toEqual([{ id: 'src1', name: 'events' }]);

    const svc = `/v1/organizations/${ORG}/services/${SERVICE}`;
    const keys = `/v1/organizations/${ORG}/keys`;
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET ${pipePath}/settings`,
      `GET ${svc}/pipes`,
      `DELETE ${pipePath}`,
      `PATCH ${pipePath}/state`,
      `GET ${keys}`,
      `GET ${keys}/${KEY_RECORD}`,
      `PATCH ${keys}/${KEY_RECORD}`,
      `DELETE ${keys}/${KEY_RECORD}`,
      `GET ${svc}/observability/dashboards`,
      `POST ${svc}/observability/dashboards`,
      `GET ${svc}/observability/dashboards/d1`,
      `PUT ${svc}/observability/dashboards/d1`,
      `DELETE ${svc}/observability/dashboards/d1`,
      `GET ${svc}/observability/alerts`,
      `POST ${svc}/observability/alerts`,
      `GET ${svc}/observability/alerts/a1`,
      `PUT ${svc}/observability/alerts/a1`,
      `DELETE ${svc}/observability/alerts/a1`,
      `GET ${svc}/observability/sources`,
    ]);
    const state = server.requests[3];
    expect(state?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(state?.body ?? '')).toEqual({ command: 'stop' });
    expect(JSON.parse(server.requests[14]?.body ?? '')).toEqual(alertBody);
  });

  it('accepts an empty state-command result and an empty 200 body', async () => {
    const { c } = client();
    server.enqueue(ok(), ok({}), { status: 200, body: '' });
    expect(await c.pipeStateCommand(SERVICE, PIPE, 'start')).toBeUndefined();
    expect(await c.pipeStateCommand(SERVICE, PIPE, 'start')).toBeUndefined();
    expect(await c.pipeStateCommand(SERVICE, PIPE, 'resync')).toBeUndefined();
  });

  it('uses an explicit organizationId and encodes path parameters', async () => {
    const { c } = client({ organizationId: 'other-org' });
    server.enqueue(ok(pipeRecord));
    await c.getPipe('svc/../x', PIPE);
    expect(server.requests[0]?.url).toBe(
      `/v1/organizations/other-org/services/svc%2F..%2Fx/pipes/${PIPE}`,
    );
  });

  it('rejects a bad request body before sending, naming the field', async () => {
    const { c } = client();
    const error = await caught(c.createKey({ name: 'k', roles: [] }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toContain(`POST /v1/organizations/{organizationId}/keys`);
    expect((error as ValidationError).issues[0]).toMatch(/^roles: /);
    const empty = await caught(c.getPipe(SERVICE, ''));
    expect(empty).toBeInstanceOf(ValidationError);
    expect(empty.message).toContain('pipeId');
    expect(server.requests).toHaveLength(0);
  });
});

describe('typed errors', () => {
  it('carries status, code, message and requestId of a management error', async () => {
    const { c } = client();
    server.enqueue(fail(404, 'NOT_FOUND: pipe not found', 'req-404'));
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      apiMessage: 'pipe not found',
      requestId: 'req-404',
      method: 'GET',
      path: pipePath,
    });
    expect(error.message).toBe(
      `GET ${pipePath} failed with 404 NOT_FOUND: pipe not found (requestId req-404)`,
    );
    expect(isNotFound(error)).toBe(true);
  });

  it('turns an HTML 504 into UnexpectedResponseError when out of attempts', async () => {
    const { c } = client({ retry: { maxAttempts: 1 } });
    server.enqueue({
      status: 504,
      headers: { 'content-type': 'text/html' },
      body: '<html><body><h1>504 Gateway Time-out</h1></body></html>',
    });
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ status: 504, contentType: 'text/html' });
    expect((error as UnexpectedResponseError).snippet).toContain('504 Gateway Time-out');
    expect(error.message).toContain(`GET ${pipePath} answered 504`);
  });

  it('an HTML "Cannot GET" 404 is typed but is not a missing resource', async () => {
    const { c } = client();
    server.enqueue({
      status: 404,
      headers: { 'content-type': 'text/html' },
      body: '<pre>Cannot GET /v1/x</pre>',
    });
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(isNotFound(error)).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('turns truncated JSON on a 200 into UnexpectedResponseError without retrying', async () => {
    const { c } = client();
    server.enqueue({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"status":200,"requestId":"r","result":{"id":"9e8d',
    });
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ status: 200 });
    expect(error.message).toContain('not valid JSON');
    expect(server.requests).toHaveLength(1);
  });

  it('names the field path of a schema mismatch in a field we use (never in one we do not)', async () => {
    const { c } = client();
    server.enqueue(ok({ ...pipeRecord, state: 42, scaling: { replicas: 'two' } }, 'req-bad'));
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(ResponseValidationError);
    const issues = (error as ResponseValidationError).issues;
    expect(issues.some((i) => i.startsWith('result.state:'))).toBe(true);
    expect(issues.some((i) => i.includes('scaling'))).toBe(false);
    expect(error.message).toContain(`GET ${pipePath} returned an unexpected payload`);
    expect(error).toMatchObject({ requestId: 'req-bad', status: 200 });
  });

  it('a missing result is a validation error naming result', async () => {
    const { c } = client();
    server.enqueue({ status: 200, body: { status: 200, requestId: 'r' } });
    const error = await caught(c.listKeys());
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]).toMatch(/^result:/);
  });
});

describe('retries', () => {
  it('waits for X-RateLimit-Reset on 429, then succeeds', async () => {
    const { c, clock } = client();
    server.enqueue(
      { ...fail(429, 'TOO_MANY_REQUESTS: slow down'), headers: { 'x-ratelimit-reset': '3' } },
      ok(pipeRecord),
    );
    await expect(c.getPipe(SERVICE, PIPE)).resolves.toMatchObject({ id: PIPE });
    expect(clock.sleeps).toEqual([3000]);
    expect(server.requests).toHaveLength(2);
  });

  it('really waits for Retry-After (1 s) on 429 with the system clock', async () => {
    const { c } = client({ clock: undefined });
    server.enqueue(
      { status: 429, headers: { 'retry-after': '1' }, body: 'Too Many Requests' },
      ok(pipeRecord),
    );
    await c.getPipe(SERVICE, PIPE);
    const [first, second] = server.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('a 429 pauses the shared limiter bucket for every client on the credential', async () => {
    const clock = fakeClock();
    const limiters = new RateLimiterRegistry(clock);
    const { c } = client({ clock, limiters, rateLimit: { limit: 100, windowMs: 1000 } });
    server.enqueue(
      { ...fail(429, 'TOO_MANY_REQUESTS: x'), headers: { 'x-ratelimit-reset': '2' } },
      ok(pipeRecord),
    );
    await c.getPipe(SERVICE, PIPE);
    // The retry waited 2 s; the limiter saw the same pause and added nothing more.
    expect(clock.sleeps).toEqual([2000]);
  });

  it('retries a 500 with backoff and returns the later success', async () => {
    const { c, clock } = client();
    server.enqueue(
      fail(500, 'INTERNAL_SERVER_ERROR: boom'),
      fail(502, 'BAD_GATEWAY: x'),
      ok(pipeRecord),
    );
    await expect(c.getPipe(SERVICE, PIPE)).resolves.toMatchObject({ id: PIPE });
    expect(clock.sleeps).toEqual([250, 500]);
  });

  it('retries an HTML 504 and succeeds', async () => {
    const { c } = client();
    server.enqueue(
      { status: 504, headers: { 'content-type': 'text/html' }, body: '<html>504</html>' },
      ok(pipeRecord),
    );
    await expect(c.getPipe(SERVICE, PIPE)).resolves.toMatchObject({ id: PIPE });
  });

  it('retries a connection reset and succeeds', async () => {
    const { c } = client();
    server.enqueue({ reset: true }, ok(pipeRecord));
    await expect(c.getPipe(SERVICE, PIPE)).resolves.toMatchObject({ id: PIPE });
    expect(server.requests).toHaveLength(2);
  });

  it('times out a slow attempt and succeeds on the next', async () => {
    const { c } = client({ timeoutMs: 150 });
    server.enqueue({ ...ok(pipeRecord), delayMs: 1000 }, ok(pipeRecord));
    const started = performance.now();
    await expect(c.getPipe(SERVICE, PIPE)).resolves.toMatchObject({ id: PIPE });
    expect(performance.now() - started).toBeLessThan(900);
    expect(server.requests).toHaveLength(2);
  });

  it('reports a timeout as TransportError when out of attempts', async () => {
    const { c } = client({ timeoutMs: 100, retry: { maxAttempts: 1 } });
    server.enqueue({ ...ok(pipeRecord), delayMs: 500 });
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ kind: 'timeout', maybeSent: true });
  });

  it.each([
    [400, 'BAD_REQUEST: pipe must be paused to edit'],
    [403, 'FORBIDDEN: role developer may not'],
    [404, 'NOT_FOUND: no such pipe'],
    [409, 'CONFLICT: exists'],
    [424, 'FAILED_DEPENDENCY: service idle'],
  ])('never retries %i', async (status, text) => {
    const { c, clock } = client();
    server.enqueue(fail(status, text), ok(pipeRecord));
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toMatchObject({ status });
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('does not retry a non-idempotent POST after a 500 or a reset', async () => {
    const { c } = client();
    const body: CreateKeyRequest = { name: 'ci', roles: ['developer'] };
    server.enqueue(fail(500, 'INTERNAL_SERVER_ERROR: x'), { reset: true }, ok({}));
    expect(await caught(c.createKey(body))).toMatchObject({ status: 500 });
    expect(await caught(c.createKey(body))).toMatchObject({ kind: 'reset' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a non-idempotent POST after a 429', async () => {
    const { c } = client();
    const key = { id: KEY_RECORD, name: 'ci', roles: ['developer'], keySuffix: 'WXYZ' };
    server.enqueue(
      { ...fail(429, 'TOO_MANY_REQUESTS: x'), headers: { 'retry-after': '1' } },
      ok({ key, keyId: 'AAAAWXYZ', keySecret: 'fresh-secret-value-123' }),
    );
    const created = await c.createKey({ name: 'ci', roles: ['developer'] });
    expect(created.keyId).toBe('AAAAWXYZ');
    expect(server.requests).toHaveLength(2);
  });

  it('retries POST create key with hashData after a 500 (a duplicate would answer 409)', async () => {
    const { c } = client();
    const key = { id: KEY_RECORD, name: 'ci', roles: ['developer'], keySuffix: 'WXYZ' };
    server.enqueue(fail(500, 'INTERNAL_SERVER_ERROR: x'), ok({ key }));
    const created = await c.createKey({
      name: 'ci',
      roles: ['developer'],
      hashData: { keyIdHash: 'aGFzaA==', keyIdSuffix: 'WXYZ', keySecretHash: 'aGFzaDI=' },
    });
    expect(created.key.id).toBe(KEY_RECORD);
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  it('retries a refused connection even for a POST (it never reached the server)', async () => {
    const closed = await startCannedServer();
    const url = closed.url;
    await closed.close();
    const { c, clock } = client({ baseUrl: url, retry: { maxAttempts: 3 } });
    const error = await caught(
      c.createAlert(SERVICE, {
        name: 'x',
        source: 'search',
        savedSearchId: 's1',
        threshold: 1,
        interval: '1m',
        thresholdType: 'above',
        channel: { type: 'webhook', webhookId: 'w' },
      }),
    );
    expect(error).toMatchObject({ kind: 'refused', maybeSent: false });
    expect(clock.sleeps).toHaveLength(2);
  });

  it('respects the overall deadline and throws the last error', async () => {
    const { c, clock } = client({ deadlineMs: 2_000 });
    for (let i = 0; i < 20; i++) server.enqueue(fail(503, 'SERVICE_UNAVAILABLE: x'));
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toMatchObject({ status: 503 });
    const waited = clock.sleeps.reduce((a, b) => a + b, 0);
    expect(waited).toBeLessThanOrEqual(2_000);
    // 250 + 500 + 1000 = 1750; the next 2000 would pass the deadline.
    expect(clock.sleeps).toEqual([250, 500, 1000]);
    expect(server.requests).toHaveLength(4);
  });

  it('does not wait for a 429 reset beyond the deadline', async () => {
    const { c, clock } = client({ deadlineMs: 5_000 });
    server.enqueue({
      ...fail(429, 'TOO_MANY_REQUESTS: x'),
      headers: { 'x-ratelimit-reset': '30' },
    });
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toMatchObject({ status: 429, retryAfterMs: 30_000 });
    expect(clock.sleeps).toEqual([]);
  });

  it('stops at once when the caller aborts', async () => {
    const { c } = client();
    server.enqueue({ ...ok(pipeRecord), delayMs: 1_000 });
    const controller = new AbortController();
    // Abort once the server holds the request (a fixed delay is flaky on a loaded machine).
    const abortWhenSent = () =>
      server.requests.length > 0 ? controller.abort() : setTimeout(abortWhenSent, 5);
    abortWhenSent();
    const error = await caught(c.getPipe(SERVICE, PIPE, { signal: controller.signal }));
    expect(error).toMatchObject({ name: 'TransportError', kind: 'aborted' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('401 handling', () => {
  it('refreshes the credential once and retries once with the new secret', async () => {
    const { c, credentials } = client();
    const before = credentials.current();
    server.enqueue(
      { status: 401, headers: { 'content-type': 'text/plain' }, body: 'Unauthorized' },
      ok(pipeRecord),
    );
    await expect(c.getPipe(SERVICE, PIPE)).resolves.toMatchObject({ id: PIPE });
    expect(credentials.refreshes).toBe(1);
    const after = credentials.current();
    expect(after.keySecret).not.toBe(before.keySecret);
    expect(server.requests[1]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${after.keyId}:${after.keySecret}`).toString('base64')}`,
    );
  });

  it('gives up after the one retry (plain-text 401 stays a typed error)', async () => {
    const { c, credentials } = client();
    server.enqueue(
      { status: 401, headers: { 'content-type': 'text/plain' }, body: 'Unauthorized' },
      { status: 401, headers: { 'content-type': 'text/plain' }, body: 'Unauthorized' },
      ok(pipeRecord),
    );
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ status: 401 });
    expect(credentials.refreshes).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a non-idempotent POST once after a 401 (it was not processed)', async () => {
    const { c, credentials } = client();
    server.enqueue(fail(401, 'UNAUTHORIZED: bad key'), ok({ id: 'a1', name: 'x' }));
    await c.createAlert(SERVICE, {
      name: 'x',
      source: 'search',
      savedSearchId: 's1',
      threshold: 1,
      interval: '1m',
      thresholdType: 'above',
      channel: { type: 'webhook', webhookId: 'w' },
    });
    expect(credentials.refreshes).toBe(1);
    expect(server.requests).toHaveLength(2);
  });
});

describe('secrets never leak', () => {
  it('keeps the Authorization header and secrets out of errors and log lines', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', sink: (line) => lines.push(line) });
    const { c, credentials } = client({ logger });
    const { keyId, keySecret } = credentials.current();
    const basic = Buffer.from(`${keyId}:${keySecret}`).toString('base64');
    const echo = (status: number) =>
      fail(status, `UNAUTHORIZED: rejected Authorization: Basic ${basic} (secret ${keySecret})`);
    server.enqueue(
      echo(500),
      {
        status: 502,
        headers: { 'content-type': 'text/html' },
        body: `<p>${basic} ${keySecret}</p>`,
      },
      echo(400),
    );
    const error = await caught(c.getPipe(SERVICE, PIPE));
    expect(error).toMatchObject({ status: 400 });
    const texts = [error.message, JSON.stringify(error), String(error.stack), ...lines];
    expect(lines.length).toBeGreaterThan(0);
    for (const text of texts) {
      expect(text).not.toContain(keySecret);
      expect(text).not.toContain(basic);
    }
  });

  it('registers a created key secret so later text masks it', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', sink: (line) => lines.push(line) });
    const { c } = client({ logger });
    const secret = 'brand-new-secret-9f8e7d6c5b4a';
    const key = { id: KEY_RECORD, name: 'ci', roles: ['admin'], keySuffix: 'WXYZ' };
    server.enqueue(
      ok({ key, keyId: 'NEWKEYWXYZ', keySecret: secret }),
      fail(400, `BAD_REQUEST: ${secret}`),
    );
    const created = await c.createKey({ name: 'ci', roles: ['admin'] });
    expect(created.keySecret).toBe(secret);
    const error = await caught(c.getKey(KEY_RECORD));
    expect(error.message).not.toContain(secret);
    expect(error.message).toContain('[REDACTED]');
  });
});
