import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apiError as makeApiError,
  backoff,
  defaultRetryPolicy,
  nextDelay,
  resetDelayMs,
  transportError as makeTransportError,
  type RetryPolicy,
  type TransportErrorKind,
} from '../../../lib/api';

const ref = { method: 'GET', path: '/v1/x' };
const apiError = (status: number, retryAfterMs?: number) =>
  makeApiError({ ...ref, status, retryAfterMs });
const transport = (kind: TransportErrorKind, maybeSent = kind !== 'refused') =>
  makeTransportError({ ...ref, kind, maybeSent, detail: kind });

describe('nextDelay', () => {
  const policy: RetryPolicy = { ...defaultRetryPolicy, jitter: 0 };

  it('backs off exponentially up to the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => nextDelay(n, apiError(500), policy, 0));
    expect(delays).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('uses the server reset on 429, even for unsafe requests', () => {
    expect(nextDelay(1, apiError(429, 7000), policy, 0, 'unsafe')).toBe(7000);
    expect(nextDelay(1, apiError(429), policy, 0)).toBe(250);
  });

  it('retries 5xx and sent transport failures only for idempotent requests', () => {
    expect(nextDelay(1, apiError(503), policy, 0, 'unsafe')).toBeUndefined();
    expect(nextDelay(1, transport('timeout'), policy, 0, 'unsafe')).toBeUndefined();
    expect(nextDelay(1, transport('reset'), policy, 0, 'unsafe')).toBeUndefined();
    expect(nextDelay(1, transport('refused'), policy, 0, 'unsafe')).toBe(250);
    expect(nextDelay(1, transport('timeout'), policy, 0)).toBe(250);
    expect(nextDelay(1, transport('aborted'), policy, 0)).toBeUndefined();
  });

  it('never passes maxAttempts or the deadline; unknown errors are not retried', () => {
    expect(nextDelay(10, apiError(500), policy, 0)).toBeUndefined();
    expect(nextDelay(1, apiError(500), policy, 59_800)).toBeUndefined();
    expect(nextDelay(1, new Error('bug'), policy, 0)).toBeUndefined();
  });

  it('jitter draws from [nominal·(1-jitter), nominal]', () => {
    const p = { ...policy, jitter: 0.5 };
    expect(backoff(3, p, () => 0)).toBe(1000);
    expect(backoff(3, p, () => 1)).toBe(500);
  });
});

describe('retry policy properties', () => {
  const policies = fc.record({
    maxAttempts: fc.integer({ min: 1, max: 20 }),
    baseDelayMs: fc.integer({ min: 1, max: 5_000 }),
    maxDelayMs: fc.integer({ min: 1, max: 60_000 }),
    deadlineMs: fc.integer({ min: 0, max: 120_000 }),
    jitter: fc.double({ min: 0, max: 1, noNaN: true }),
    doNotRetry: fc.constant(defaultRetryPolicy.doNotRetry),
  });
  const errors = fc.oneof(
    fc
      .integer({ min: 400, max: 599 })
      .chain((status) =>
        fc
          .option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined })
          .map((reset) => apiError(status, reset)),
      ),
    fc
      .constantFrom<TransportErrorKind>('timeout', 'reset', 'refused', 'aborted', 'network')
      .map((k) => transport(k)),
  );

  it('never retries a 4xx other than 429', () => {
    fc.assert(
      fc.property(
        policies,
        fc.integer({ min: 400, max: 499 }).filter((s) => s !== 429),
        fc.nat(30),
        fc.nat(200_000),
        fc.constantFrom('idempotent', 'unsafe'),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (policy, status, attempt, elapsed, idem, r) => {
          expect(
            nextDelay(attempt, apiError(status), policy, elapsed, idem as 'idempotent', () => r),
          ).toBeUndefined();
        },
      ),
    );
  });

  it('total wait over a whole retry sequence never exceeds the deadline', () => {
    fc.assert(
      fc.property(
        policies,
        fc.array(errors, { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(3_000)),
        fc.constantFrom('idempotent', 'unsafe'),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (policy, failures, attemptDurations, idem, r) => {
          let elapsed = 0;
          for (let i = 0; i < failures.length; i++) {
            elapsed += attemptDurations[i] ?? 0;
            const delay = nextDelay(i + 1, failures[i], policy, elapsed, idem, () => r);
            if (delay === undefined) break;
            expect(delay).toBeGreaterThanOrEqual(0);
            elapsed += delay;
            expect(elapsed).toBeLessThanOrEqual(policy.deadlineMs);
            expect(i + 1).toBeLessThan(policy.maxAttempts);
          }
        },
      ),
    );
  });
});

describe('resetDelayMs', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  it('reads X-RateLimit-Reset, RateLimit-Reset and Retry-After seconds', () => {
    expect(resetDelayMs(headers({ 'x-ratelimit-reset': '3' }))).toBe(3000);
    expect(resetDelayMs(headers({ 'ratelimit-reset': '0.5' }))).toBe(500);
    expect(resetDelayMs(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(resetDelayMs(headers({}))).toBeUndefined();
    expect(resetDelayMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });
  it('reads an HTTP date and an epoch-seconds reset', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(resetDelayMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), now)).toBe(
      5000,
    );
    expect(resetDelayMs(headers({ 'x-ratelimit-reset': String(now / 1000 + 4) }), now)).toBe(4000);
  });
});
