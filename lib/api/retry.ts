import { ApiError, TransportError } from './errors';

/** Retry policy as data (Octokit-style): the caller can read, override and test it. */
export interface RetryPolicy {
  /** Attempts in total, the first one included. */
  readonly maxAttempts: number;
  /** First backoff; doubles per attempt up to maxDelayMs. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** No attempt starts and no wait ends past this many ms after the first attempt. */
  readonly deadlineMs: number;
  /** 0 = no jitter; 0.5 = each backoff drawn from [50%, 100%] of its nominal value. */
  readonly jitter: number;
  /** Statuses never retried even if otherwise retryable. Other 4xx (not 429) never retry anyway. */
  readonly doNotRetry: readonly number[];
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 10,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  deadlineMs: 60_000,
  jitter: 0.5,
  doNotRetry: [400, 401, 403, 404, 409, 410, 422, 424],
};

/**
 * How retry-safe a request is.
 * - `idempotent`: GET/PUT/DELETE/PATCH and POST create-key with hashData (a duplicate answers 409).
 * - `unsafe`: a POST that would create a duplicate if it ran twice; retried only when the
 *   server surely did not process it (429, or a connection that never reached it).
 */
export type Idempotency = 'idempotent' | 'unsafe';

/**
 * The wait before the next attempt, or undefined to give up and throw `error`.
 * `attempt` = attempts made so far (1 after the first failure); `elapsedMs` since the first.
 * Pure: tests drive it directly; `random` is injectable.
 */
export function nextDelay(
  attempt: number,
  error: unknown,
  policy: RetryPolicy,
  elapsedMs: number,
  idempotency: Idempotency = 'idempotent',
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  const delay = delayFor(attempt, error, policy, idempotency, random);
  if (delay === undefined) return undefined;
  // Never wait past the deadline: give up now with the real error instead.
  if (elapsedMs + delay > policy.deadlineMs) return undefined;
  return delay;
}

function delayFor(
  attempt: number,
  error: unknown,
  policy: RetryPolicy,
  idempotency: Idempotency,
  random: () => number,
): number | undefined {
  if (error instanceof ApiError) {
    if (error.status === 429) {
      return error.retryAfterMs ?? backoff(attempt, policy, random);
    }
    if (!error.retryable || policy.doNotRetry.includes(error.status)) return undefined;
    // A 5xx may have been processed: only idempotent requests try again.
    return idempotency === 'idempotent' ? backoff(attempt, policy, random) : undefined;
  }
  if (error instanceof TransportError) {
    if (!error.retryable) return undefined;
    if (idempotency === 'unsafe' && error.maybeSent) return undefined;
    return backoff(attempt, policy, random);
  }
  return undefined;
}

/** Exponential backoff with jitter: nominal base·2^(attempt-1), capped, minus up to jitter·nominal. */
export function backoff(attempt: number, policy: RetryPolicy, random: () => number = Math.random) {
  const nominal = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(nominal * (1 - policy.jitter * r));
}

/** Epoch seconds rather than a delta when this large (some servers send an absolute time). */
const EPOCH_THRESHOLD_S = 1_000_000_000;

/**
 * Milliseconds until the rate limit resets, from `X-RateLimit-Reset`, `RateLimit-Reset`
 * (seconds) or `Retry-After` (seconds or an HTTP date). Undefined when none is usable.
 */
export function resetDelayMs(
  getHeader: (name: string) => string | null | undefined,
  nowEpochMs: number = Date.now(),
): number | undefined {
  for (const name of ['x-ratelimit-reset', 'ratelimit-reset', 'retry-after']) {
    const raw = getHeader(name)?.trim();
    if (!raw) continue;
    if (/^\d+(\.\d+)?$/.test(raw)) {
      const seconds = Number(raw);
      if (seconds >= EPOCH_THRESHOLD_S) return Math.max(0, seconds * 1000 - nowEpochMs);
      return Math.ceil(seconds * 1000);
    }
    const date = Date.parse(raw);
    if (name === 'retry-after' && !Number.isNaN(date)) return Math.max(0, date - nowEpochMs);
  }
  return undefined;
}
