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

/** Send every delivery this run claimed, in order, to each notifier still owed it. */
export async function sendClaimed(
  pending: PendingDelivery[],
  runId: string,
  notifiers: readonly Notifier[],
  logger: Logger,
  signal?: AbortSignal,
): Promise<DeliveryOutcome> {
  const outcome: DeliveryOutcome = { delivered: new Map(), errors: [] };
  for (const p of pending.filter((x) => x.claimedBy === runId)) {
    // A notifier no longer configured is owed nothing (else the entry would never settle).
    const done = new Set(p.remaining.filter((name) => !notifiers.some((n) => n.name === name)));
    outcome.delivered.set(p.notification.id, done);
    await Promise.all(
      notifiers
        .filter((n) => p.remaining.includes(n.name))
        .map(async (notifier) => {
          try {
            await notifier.send(p.notification, signal);
            done.add(notifier.name);
          } catch (error) {
            const message = (error as Error).message;
            outcome.errors.push({
              notificationId: p.notification.id,
              notifier: notifier.name,
              message,
            });
            logger.warn('notification not delivered; it stays pending for the next run', {
              notificationId: p.notification.id,
              notifier: notifier.name,
              error,
            });
          }
        }),
    );
  }
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
