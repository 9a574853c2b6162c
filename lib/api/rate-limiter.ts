import { CloudOpsError, type ErrorOptions } from '../errors';
import { systemClock, type Clock } from './clock';

/** The bucket is paused (a server 429 reset) until after the waiter's deadline. */
export class PausedPastDeadline extends CloudOpsError {
  override name = 'PausedPastDeadline';
  declare readonly pausedForMs: number;
  declare readonly remainingMs: number;
  constructor(
    message: string,
    options: ErrorOptions & { pausedForMs: number; remainingMs: number },
  ) {
    super(message, options);
    this.pausedForMs = options.pausedForMs;
    this.remainingMs = options.remainingMs;
  }
}

export interface RateLimitConfig {
  /** At most this many requests... */
  readonly limit: number;
  /** ...in any window of this many milliseconds. */
  readonly windowMs: number;
  /**
   * Extra ms kept between the N-th-previous start and the next one, so a server counting
   * arrival times (a few ms later than our start) never sees N+1 in its window.
   * @default 1% of windowMs, at most 50
   */
  readonly marginMs?: number;
}

export const MANAGEMENT_RATE_LIMIT: RateLimitConfig = { limit: 10, windowMs: 10_000 };
export const OBSERVABILITY_RATE_LIMIT: RateLimitConfig = { limit: 100, windowMs: 60_000 };
/** 1% of the window, at most 50 ms: covers network skew without costing throughput. */
const defaultMargin = (windowMs: number) => Math.min(50, windowMs / 100);

/** One counted request start; tell the limiter when its answer came back. */
export interface RateLimitSlot {
  /** The answer arrived (or the attempt failed after sending): the window runs from now. */
  settle(): void;
  /** The request surely never reached the server (connection refused): it does not count. */
  release(): void;
}

interface Entry {
  time: number;
  pending: boolean;
}

/**
 * Sliding-window limiter: at most `limit` requests in any `windowMs`. Waiters are served in
 * arrival order; after a 429 the whole bucket pauses until the server's reset.
 *
 * A request counts from its start, but its window is only known to have ended `windowMs`
 * after its answer came back: the server saw it somewhere between the two, and a cold first
 * connection can take longer than any fixed margin. So an in-flight request holds its place
 * until settled, and then counts from the settle time.
 */
export class SlidingWindowLimiter {
  private entries: Entry[] = [];
  private pausedUntil = 0;
  private tail: Promise<void> = Promise.resolve();
  private readonly margin: number;
  private settledSignal = deferred();

  constructor(
    readonly config: RateLimitConfig,
    private readonly clock: Clock = systemClock,
  ) {
    if (!Number.isInteger(config.limit) || config.limit < 1) {
      throw new RangeError(`rate limit must be a positive integer, got ${config.limit}`);
    }
    if (!(config.windowMs > 0)) {
      throw new RangeError(`rate-limit window must be > 0 ms, got ${config.windowMs}`);
    }
    this.margin = config.marginMs ?? defaultMargin(config.windowMs);
  }

  /**
   * Resolves when this caller may start a request (and counts that start). With `deadlineAt`
   * (clock time), rejects with PausedPastDeadline instead of waiting out a pause that ends
   * after it; ordinary queueing for the window is not bounded by it.
   */
  acquire(
    signal?: AbortSignal,
    deadlineAt?: number,
    onWait?: (waitMs: number) => void,
  ): Promise<RateLimitSlot> {
    const tooLong = this.pastDeadline(deadlineAt);
    if (tooLong) return Promise.reject(tooLong);
    const turn = this.tail.then(() => this.waitForSlot(signal, deadlineAt, onWait));
    // A waiter that aborted must not block the ones behind it.
    this.tail = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /** Stop all starts until `untilMs` (clock time), e.g. the reset a 429 announced. */
  pauseUntil(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }

  /** Requests counted in the current window, in flight included (tests, diagnostics). */
  inWindow(): number {
    this.prune(this.clock.now());
    return this.entries.length;
  }

  private prune(now: number): void {
    const horizon = now - this.config.windowMs - this.margin;
    this.entries = this.entries.filter((e) => e.pending || e.time > horizon);
  }

  private slot(entry: Entry): RateLimitSlot {
    const done = (keep: boolean) => {
      if (!entry.pending) return;
      entry.pending = false;
      entry.time = this.clock.now();
      if (!keep) this.entries = this.entries.filter((e) => e !== entry);
      const signal = this.settledSignal;
      this.settledSignal = deferred();
      signal.resolve();
    };
    return { settle: () => done(true), release: () => done(false) };
  }

  private pastDeadline(deadlineAt: number | undefined): PausedPastDeadline | undefined {
    if (deadlineAt === undefined) return undefined;
    const now = this.clock.now();
    if (this.pausedUntil <= deadlineAt || this.pausedUntil <= now) return undefined;
    const pausedForMs = this.pausedUntil - now;
    const remainingMs = Math.max(0, deadlineAt - now);
    return new PausedPastDeadline(
      `rate limit paused for ${Math.round(pausedForMs)} ms, past the deadline (${Math.round(remainingMs)} ms left)`,
      { pausedForMs, remainingMs },
    );
  }

  private async waitForSlot(
    signal?: AbortSignal,
    deadlineAt?: number,
    onWait?: (waitMs: number) => void,
  ): Promise<RateLimitSlot> {
    for (;;) {
      signal?.throwIfAborted();
      const tooLong = this.pastDeadline(deadlineAt);
      if (tooLong) throw tooLong;
      const now = this.clock.now();
      this.prune(now);
      let wait = this.pausedUntil - now;
      if (this.entries.length >= this.config.limit) {
        const settled = this.entries.filter((e) => !e.pending).map((e) => e.time);
        if (settled.length === 0) {
          // Every counted request is still in flight: its window has not even started.
          await raceAbort(this.settledSignal.promise, signal);
          continue;
        }
        wait = Math.max(wait, Math.min(...settled) + this.config.windowMs + this.margin - now);
      }
      if (wait <= 0) {
        const entry: Entry = { time: now, pending: true };
        this.entries.push(entry);
        return this.slot(entry);
      }
      onWait?.(wait);
      await this.clock.sleep(wait, signal);
    }
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function raceAbort(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, reject);
  });
}

/**
 * Limiters shared by every client in the process that uses the same credential, so two
 * clients on one key never add up to more than the key's limit.
 */
export class RateLimiterRegistry {
  private readonly limiters = new Map<string, SlidingWindowLimiter>();

  constructor(private readonly clock: Clock = systemClock) {}

  get(credentialLabel: string, config: RateLimitConfig): SlidingWindowLimiter {
    const key = `${credentialLabel}|${config.limit}/${config.windowMs}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      limiter = new SlidingWindowLimiter(config, this.clock);
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}

/** The process-wide registry clients use unless given their own. */
export const sharedRateLimiters = new RateLimiterRegistry();
