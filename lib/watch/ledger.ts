/**
 * The deliver-once ledger, pure: notices are written as pending (claimed by one run) before
 * anything is sent, each notifier is struck off an entry as soon as it took it, and what is
 * left is released for the next run, within bounds (attempts, age, size).
 */
import * as z from 'zod/mini';
import { safeInteger } from '../schemas/builders';
import type { Notice } from './notice';

/**
 * A notice not yet delivered to every notifier, claimed by one run at a time; `notice` reads
 * the notices of the watcher's subjects (its NoticeSet's schema).
 */
export function pendingDeliveryOf<N extends Notice>(notice: z.ZodMiniType<N>) {
  return z.object({
    /** Named `notification` in stored records (its name before subjects existed). */
    notification: notice,
    /** Notifier names still owed this notice. */
    remaining: z.array(z.string()),
    claimedBy: z.optional(z.string()),
    claimedAt: z.optional(z.number()),
    attempts: z._default(z.number().check(safeInteger()), 0),
  });
}
export type PendingDelivery<N extends Notice = Notice> = z.output<
  ReturnType<typeof pendingDeliveryOf<N>>
>;

export interface DeliveryLimits {
  /** One notifier's call (or one batch) may take this long; then it is skipped for the run. */
  notifierTimeoutMs: number;
  /** A pending delivery is dropped (logged as an error, counted) after this many runs tried it. */
  maxAttempts: number;
  /** ...or once its notice is this old. */
  maxAgeMs: number;
  /** At most this many pending entries per record (the oldest go first), far below 400 KB. */
  maxPending: number;
}

/** A run's limits unless its settings say otherwise (a plain object: a run needs no parser). */
export const DEFAULT_DELIVERY_LIMITS: Readonly<DeliveryLimits> = {
  notifierTimeoutMs: 10_000,
  maxAttempts: 10,
  maxAgeMs: 24 * 3_600_000,
  maxPending: 50,
};

/** The limits as a settings file gives them (the watchdog's), each defaulted as above. */
export const deliveryLimitsSchema = /* @__PURE__ */ z.lazy(() => {
  const count = (fallback: number) =>
    z._default(z.number().check(safeInteger(), z.positive()), fallback);
  return z.strictObject({
    notifierTimeoutMs: count(DEFAULT_DELIVERY_LIMITS.notifierTimeoutMs),
    maxAttempts: count(DEFAULT_DELIVERY_LIMITS.maxAttempts),
    maxAgeMs: count(DEFAULT_DELIVERY_LIMITS.maxAgeMs),
    maxPending: count(DEFAULT_DELIVERY_LIMITS.maxPending),
  }) satisfies z.ZodMiniType<DeliveryLimits>;
});

/** Take over pending deliveries nobody holds (released, or the holder's lease ran out). */
export function claimPending(
  pending: PendingDelivery[],
  runId: string,
  now: number,
  leaseMs: number,
): PendingDelivery[] {
  return pending.map((p) =>
    p.claimedBy === undefined || p.claimedBy === runId || now - (p.claimedAt ?? 0) >= leaseMs
      ? { ...p, claimedBy: runId, claimedAt: now }
      : p,
  );
}

/**
 * Notices owed to `notifiers`, claimed by this run. A notice owed to none (routed below every
 * floor, or no notifier configured) is still claimed, so the run reports it; nothing sends it.
 */
export function newPending(
  notices: readonly Notice[],
  notifiers: readonly string[],
  runId: string,
  now: number,
): PendingDelivery[] {
  return notices.map((n) => ({
    notification: n,
    remaining: [...notifiers],
    claimedBy: runId,
    claimedAt: now,
    attempts: 0,
  }));
}

/** Strike `notifier` off the entries this run holds for `ids`; an entry owed nothing goes. */
export function markDelivered(
  pending: PendingDelivery[],
  runId: string,
  notifier: string,
  ids: ReadonlySet<string>,
): PendingDelivery[] {
  return pending.flatMap((p) => {
    if (p.claimedBy !== runId || !ids.has(p.notification.id)) return [p];
    const remaining = p.remaining.filter((name) => name !== notifier);
    return remaining.length > 0 ? [{ ...p, remaining }] : [];
  });
}

/** Strike off notifiers no longer configured (else the entry would never settle). */
export function dropUnknownNotifiers(
  pending: PendingDelivery[],
  notifiers: readonly string[],
): PendingDelivery[] {
  const names = new Set(notifiers);
  return pending.flatMap((p) => {
    const remaining = p.remaining.filter((name) => names.has(name));
    return remaining.length > 0 ? [{ ...p, remaining }] : [];
  });
}

export interface DroppedDelivery {
  notification: Notice;
  remaining: string[];
  reason: 'attempts' | 'age' | 'size';
}

/** Bounds on what stays pending: too many attempts, too old, or beyond the size cap (oldest go). */
export function boundPending(
  pending: PendingDelivery[],
  now: number,
  limits: DeliveryLimits,
): { pending: PendingDelivery[]; dropped: DroppedDelivery[] } {
  const dropped: DroppedDelivery[] = [];
  const kept: PendingDelivery[] = [];
  for (const p of pending) {
    const age = now - Date.parse(p.notification.at);
    const reason =
      p.attempts >= limits.maxAttempts ? 'attempts' : age >= limits.maxAgeMs ? 'age' : undefined;
    if (reason) dropped.push({ notification: p.notification, remaining: p.remaining, reason });
    else kept.push(p);
  }
  if (kept.length > limits.maxPending) {
    const byAge = [...kept].sort(
      (a, b) => Date.parse(a.notification.at) - Date.parse(b.notification.at),
    );
    const cut = new Set(byAge.slice(0, kept.length - limits.maxPending));
    for (const p of cut)
      dropped.push({ notification: p.notification, remaining: p.remaining, reason: 'size' });
    return { pending: kept.filter((p) => !cut.has(p)), dropped };
  }
  return { pending: kept, dropped };
}

/** After every notifier had its turn: what this run still holds is released for the next run. */
export function releasePending(pending: PendingDelivery[], runId: string): PendingDelivery[] {
  return pending.map((p) =>
    p.claimedBy === runId
      ? { notification: p.notification, remaining: p.remaining, attempts: p.attempts + 1 }
      : p,
  );
}
