/* eslint-disable @typescript-eslint/no-unsafe-member-access -- raw JSON bodies of the HTTP API under test */
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxOptions } from '../../sandbox/index';
import { parseFaultSpec } from '../../sandbox/index';
import { admin, mgmt, obs } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';
import { DEFAULT_RATE_LIMITS } from '../../sandbox/index';

const open: Sandbox[] = [];
async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startTestSandbox({ rateLimits: DEFAULT_RATE_LIMITS, ...options });
  open.push(sb);
  return sb;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((sb) => sb.close()));
});

describe('rate limits', () => {
  it('management: 429 TOO_MANY_REQUESTS with X-RateLimit-Reset and Retry-After, per key, reset by the window', async () => {
    const sb = await sandbox({ rateLimits: { management: { limit: 3, windowMs: 10_000 } } });
    for (let i = 0; i < 3; i++) expect((await mgmt(sb, 'GET', '/keys')).status).toBe(200);
    const limited = await mgmt(sb, 'GET', '/keys');
    expect(limited.status).toBe(429);
    expect(limited.json.error).toMatch(/^TOO_MANY_REQUESTS: /);
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(10);
    expect(limited.headers.get('retry-after')).toBe(String(reset));
    sb.clock.advance(10_000);
    expect((await mgmt(sb, 'GET', '/keys')).status).toBe(200);
  });

  it('observability: 429 with RateLimit-* headers per token', async () => {
    const sb = await sandbox({ rateLimits: { observability: { limit: 2, windowMs: 60_000 } } });
    const first = await obs(sb, 'GET', '/dashboards');
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    await obs(sb, 'GET', '/dashboards');
    const limited = await obs(sb, 'GET', '/dashboards');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(limited.headers.get('retry-after')).toBe(limited.headers.get('ratelimit-reset'));
  });
});

async function faultedSequence(spec: string): Promise<string[]> {
  const sb = await sandbox({ faults: spec });
  const statuses: string[] = [];
  for (let i = 0; i < 24; i++) {
    const res = await obs(sb, 'GET', '/dashboards');
    statuses.push(`${res.status}${res.headers.get('content-type')?.includes('html') ? 'h' : ''}`);
  }
  // Routes outside the pattern are never faulted.
  expect((await mgmt(sb, 'GET', '/keys')).status).toBe(200);
  const faulted = sb.requestLog.entries().filter((e) => e.fault);
  expect(faulted.every((e) => e.path === '/api/v2/dashboards')).toBe(true);
  return statuses;
}

describe('faults', () => {
  it('parses the compact CLI form', () => {
    expect(parseFaultSpec('seed=7,rate=0.2,kinds=500+html504+reset,route=PUT /api/v2/.*')).toEqual({
      seed: 7,
      rate: 0.2,
      kinds: ['500', 'html504', 'reset'],
      routes: 'PUT /api/v2/.*',
    });
    expect(() => parseFaultSpec('seed=1,rate=0.5,kinds=boom')).toThrow(/unknown kind "boom"/);
  });

  it('the same seed gives the same faulted request sequence; another seed a different one', async () => {
    const spec = (seed: number) =>
      `seed=${seed},rate=0.5,kinds=500+html504+429,route=GET /api/v2/.*`;
    const first = await faultedSequence(spec(7));
    const second = await faultedSequence(spec(7));
    const other = await faultedSequence(spec(8));
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
    expect(first.some((s) => s === '200')).toBe(true);
    expect(first.some((s) => s !== '200')).toBe(true);
    expect(new Set(first)).toEqual(new Set(['200', '500', '504h', '429']));
  });

  it('a queued 500 or reset does not apply the write; truncate applies it and cuts the body', async () => {
    const sb = await sandbox();
    const count = () => sb.store.state.dashboards.length;
    const before = count();
    sb.faults.queue({ route: 'POST /api/v2/dashboards', kind: '500' });
    expect((await obs(sb, 'POST', '/dashboards', { name: 'x' })).status).toBe(500);
    expect(count()).toBe(before);
    sb.faults.queue({ route: 'POST /api/v2/dashboards', kind: 'reset' });
    await expect(obs(sb, 'POST', '/dashboards', { name: 'x' })).rejects.toThrow();
    expect(count()).toBe(before);
    sb.faults.queue({ route: 'POST /api/v2/dashboards', kind: 'truncate' });
    await expect(obs(sb, 'POST', '/dashboards', { name: 'x' })).rejects.toThrow();
    expect(count()).toBe(before + 1);
    expect((await obs(sb, 'POST', '/dashboards', { name: 'x' })).status).toBe(200);
    const kinds = sb.requestLog.entries().map((e) => e.fault);
    expect(kinds).toEqual(['500', 'reset', 'truncate', undefined]);
  });

  it('html504 on the management API is an HTML page; latency delays; admin routes set faults and are never faulted', async () => {
    const sb = await sandbox();
    const set = await admin(sb, 'POST', '/faults', { seed: 1, rate: 1, kinds: ['html504'] });
    expect(set.json.spec).toMatchObject({ rate: 1 });
    const res = await mgmt(sb, 'GET', '/keys');
    expect(res.status).toBe(504);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect((await admin(sb, 'GET', '/state')).status).toBe(200);
    sb.faults.clear();
    sb.faults.queue({ kind: 'latency', latencyMs: 120 });
    const started = Date.now();
    expect((await mgmt(sb, 'GET', '/keys')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});
