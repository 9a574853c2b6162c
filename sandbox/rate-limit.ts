export interface RateLimitConfig {
  limit: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/** Fixed-window limiter per credential, on the sandbox clock (so tests can advance it). */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly config: RateLimitConfig,
    private readonly now: () => number,
  ) {}

  take(credential: string): RateDecision {
    const now = this.now();
    let window = this.windows.get(credential);
    if (!window || now - window.start >= this.config.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(credential, window);
    }
    const resetSeconds = Math.max(1, Math.ceil((window.start + this.config.windowMs - now) / 1000));
    if (window.count >= this.config.limit) {
      return { allowed: false, limit: this.config.limit, remaining: 0, resetSeconds };
    }
    window.count++;
    return {
      allowed: true,
      limit: this.config.limit,
      remaining: this.config.limit - window.count,
      resetSeconds,
    };
  }

  reset(): void {
    this.windows.clear();
  }
}
