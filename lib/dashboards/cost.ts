/**
 * What applying a plan costs: its requests, and how long they take at the key's rate limit
 * (the client paces itself to it, so a large apply is slow rather than refused). The apply
 * makes exactly these requests unless a write's outcome is unknown (then one re-list).
 */
import { MANAGEMENT_RATE_LIMIT, type RateLimitConfig } from '../api/rate-limiter';

type RateLimit = Pick<RateLimitConfig, 'limit' | 'windowMs'>;

export interface PlanCost {
  /**
   * Requests the apply makes: one per dashboard written or deleted, one per alert written, and
   * one list after creates.
   */
  requests: number;
  /** About how long they take at `rateLimit`, the first window's burst included. */
  seconds: number;
  rateLimit: RateLimit;
}

interface Counted {
  counts: { create: number; update: number; delete: number };
  alertCounts: { create: number; update: number; delete: number };
  /** Webhooks and saved searches written or deleted: one request each. */
  objectWrites?: number;
}

export function planCost(plan: Counted, rateLimit: RateLimit = MANAGEMENT_RATE_LIMIT): PlanCost {
  const { create, update, delete: del } = plan.counts;
  const a = plan.alertCounts;
  // After creates, one list finds what a concurrent apply created too (converge.ts).
  const relist = create > 0 ? 1 : 0;
  const requests =
    create + relist + update + del + a.create + a.update + a.delete + (plan.objectWrites ?? 0);
  // `limit` go at once, then one window per further `limit`.
  const windows = requests === 0 ? 0 : Math.floor((requests - 1) / Math.max(1, rateLimit.limit));
  return { requests, seconds: Math.ceil((windows * rateLimit.windowMs) / 1000), rateLimit };
}

/** "12 requests, about 10 s at the key's rate limit (10 per 10 s)". */
export function costLine(cost: PlanCost): string {
  const { limit, windowMs } = cost.rateLimit;
  const window = windowMs % 1000 === 0 ? `${windowMs / 1000} s` : `${windowMs} ms`;
  return `${cost.requests} request(s), about ${cost.seconds} s at the key's rate limit (${limit} per ${window})`;
}
