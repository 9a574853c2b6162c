/**
 * At-least-once delivery on top of the store: notifications are written as pending (claimed by
 * one run) before anything is sent, and removed per notifier only after that notifier took them.
 */
import type { Logger } from '../log';
import type { Notifier } from '../notify/types';
import type { PendingDelivery, PipeNotification } from './types';

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

export function newPending(
  notifications: PipeNotification[],
  notifiers: readonly Notifier[],
  runId: string,
  now: number,
): PendingDelivery[] {
  return notifications.map((notification) => ({
    notification,
    remaining: notifiers.map((n) => n.name),
    claimedBy: runId,
    claimedAt: now,
    attempts: 0,
  }));
}

export interface DeliveryOutcome {
  /** notification id -> notifier names that took it */
  delivered: Map<string, Set<string>>;
  errors: { notificationId: string; notifier: string; message: string }[];
}

/**
 * Send every delivery this run claimed to each notifier still owed it. `groups` are the
 * pending lists of the records this run wrote (one per pipe / service). A notifier with
 * `sendBatch` gets everything owed to it at once (it makes as few calls as it can); any other
 * gets one `send` per notification, in order within a group, groups in parallel.
 */
export async function sendClaimed(
  groups: readonly (readonly PendingDelivery[])[],
  runId: string,
  notifiers: readonly Notifier[],
  logger: Logger,
  signal?: AbortSignal,
): Promise<DeliveryOutcome> {
  const outcome: DeliveryOutcome = { delivered: new Map(), errors: [] };
  const claimed = groups.map((g) => g.filter((p) => p.claimedBy === runId));
  for (const p of claimed.flat()) {
    // A notifier no longer configured is owed nothing (else the entry would never settle).
    const gone = p.remaining.filter((name) => !notifiers.some((n) => n.name === name));
    outcome.delivered.set(p.notification.id, new Set(gone));
  }
  const owed = (list: readonly PendingDelivery[], notifier: Notifier) =>
    list.filter((p) => p.remaining.includes(notifier.name)).map((p) => p.notification);
  const record = (n: PipeNotification, notifier: Notifier, error?: unknown) => {
    if (error === undefined) {
      outcome.delivered.get(n.id)?.add(notifier.name);
      return;
    }
    outcome.errors.push({
      notificationId: n.id,
      notifier: notifier.name,
      message: (error as Error).message,
    });
    logger.warn('notification not delivered; it stays pending for the next run', {
      notificationId: n.id,
      notifier: notifier.name,
      error,
    });
  };

  await Promise.all(
    notifiers.map(async (notifier) => {
      if (notifier.sendBatch) {
        const batch = owed(claimed.flat(), notifier);
        if (batch.length === 0) return;
        let results: unknown[];
        try {
          results = await notifier.sendBatch(batch, signal);
          // Only a result per notification says which were taken.
          if (results.length !== batch.length)
            throw new Error(`${notifier.name}: ${results.length} results for ${batch.length}`);
        } catch (error) {
          results = batch.map(() => error ?? new Error('batch failed'));
        }
        batch.forEach((n, i) => record(n, notifier, results[i]));
        return;
      }
      await Promise.all(
        claimed.map(async (group) => {
          for (const n of owed(group, notifier)) {
            try {
              await notifier.send(n, signal);
              record(n, notifier);
            } catch (error) {
              record(n, notifier, error ?? new Error('send failed'));
            }
          }
        }),
      );
    }),
  );
  return outcome;
}

/** Pending list after delivery: delivered notifiers removed, failures released for the next run. */
export function settlePending(
  pending: PendingDelivery[],
  runId: string,
  outcome: DeliveryOutcome,
): PendingDelivery[] {
  const out: PendingDelivery[] = [];
  for (const p of pending) {
    const done = outcome.delivered.get(p.notification.id);
    if (!done || p.claimedBy !== runId) {
      out.push(p);
      continue;
    }
    const remaining = p.remaining.filter((name) => !done.has(name));
    if (remaining.length > 0)
      out.push({ notification: p.notification, remaining, attempts: p.attempts + 1 });
  }
  return out;
}
