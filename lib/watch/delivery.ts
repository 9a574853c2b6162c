/**
 * Delivery of what claims owe: one lane per notifier sends whatever is queued (a batching
 * notifier in one call) and strikes that notifier off in the store as soon as it took it, so
 * a run killed later never makes a working notifier send it again. What is still owed at the
 * end is released for the next run, within the ledger's bounds.
 */
import { CloudOpsError } from '../errors';
import type { Logger } from '../log';
import type { Claim } from './claims';
import {
  boundPending,
  markDelivered,
  releasePending,
  type DeliveryLimits,
  type DroppedDelivery,
} from './ledger';
import type { Notice } from './notice';
import type { Notifier } from './notifiers/types';

interface DeliveryError<W> {
  where: W;
  notifier: string;
  message: string;
}

interface DeliveryOptions<W> {
  runId: string;
  notifiers: readonly Notifier[];
  limits: DeliveryLimits;
  now: () => number;
  logger: Logger;
  signal?: AbortSignal;
  onError(error: DeliveryError<W>): void;
  /** A pending delivery given up (attempts, age or size): logged as an error and counted. */
  onDropped(dropped: DroppedDelivery, where: W): void;
  /** A store write recording a delivery failed: the notice may be sent again. */
  onStoreError(where: W, message: string): void;
}

interface Owed<W> {
  claim: Claim<W>;
  notifications: Notice[];
}

/** Reject after `ms` even if the notifier ignores its abort signal. */
async function bounded<T>(
  work: (signal: AbortSignal) => Promise<T>,
  ms: number,
  outer?: AbortSignal,
): Promise<T> {
  const timeout = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new CloudOpsError(`no answer within ${ms} ms`);
      timeout.abort(error);
      reject(error);
    }, ms);
  });
  const signal = outer ? AbortSignal.any([outer, timeout.signal]) : timeout.signal;
  try {
    return await Promise.race([work(signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One lane per notifier. `add` queues a service's claims; each lane sends what is queued (a
 * batching notifier in one `sendBatch`), records its successes at once, and loops. A notifier
 * that timed out is skipped for the rest of the run: its entries stay pending.
 */
export class Delivery<W> {
  private readonly lanes = new Map<
    string,
    { queue: Owed<W>[]; running?: Promise<void>; stalled?: string }
  >();
  private readonly claims: Claim<W>[] = [];
  private readonly writes = new Set<Promise<unknown>>();

  constructor(private readonly o: DeliveryOptions<W>) {
    for (const n of o.notifiers) this.lanes.set(n.name, { queue: [] });
  }

  add(claims: readonly Claim<W>[]): void {
    for (const claim of claims) {
      if (claim.claimed.length === 0) continue;
      this.claims.push(claim);
      for (const notifier of this.o.notifiers) {
        const notifications = claim.claimed
          .filter((p) => p.remaining.includes(notifier.name))
          .map((p) => p.notification);
        if (notifications.length > 0)
          this.lanes.get(notifier.name)!.queue.push({ claim, notifications });
      }
    }
    for (const notifier of this.o.notifiers) this.kick(notifier);
  }

  private kick(notifier: Notifier): void {
    const lane = this.lanes.get(notifier.name)!;
    if (lane.running || lane.queue.length === 0) return;
    lane.running = (async () => {
      await Promise.resolve(); // claims added in the same tick share a batch
      while (lane.queue.length > 0) {
        const owed = lane.queue.splice(0);
        if (lane.stalled) {
          for (const o of owed) this.fail(o, notifier, lane.stalled);
          continue;
        }
        await this.send(notifier, owed, lane);
      }
    })().finally(() => {
      lane.running = undefined;
      this.kick(notifier);
    });
  }

  private fail(o: Owed<W>, notifier: Notifier, message: string) {
    for (const n of o.notifications) {
      this.o.onError({ where: o.claim.where, notifier: notifier.name, message });
      this.o.logger.warn('notice not delivered; it stays pending for the next run', {
        notificationId: n.id,
        notifier: notifier.name,
        error: message,
      });
    }
  }

  private record(o: Owed<W>, notifier: Notifier, ids: Set<string>) {
    if (ids.size === 0) return;
    const write = o.claim
      .update((p) => markDelivered(p, this.o.runId, notifier.name, ids))
      .then(
        (ok) => {
          if (!ok)
            this.o.onStoreError(
              o.claim.where,
              'could not record delivery; the notice may be sent again',
            );
        },
        (error: unknown) =>
          this.o.onStoreError(
            o.claim.where,
            `could not record delivery; the notice may be sent again: ${(error as Error).message}`,
          ),
      );
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  private async send(notifier: Notifier, owed: Owed<W>[], lane: { stalled?: string }) {
    const ms = this.o.limits.notifierTimeoutMs;
    const timedOut = (error: unknown) => {
      if (!/^no answer within/.test((error as Error).message)) return;
      lane.stalled = `${notifier.name}: no answer within ${ms} ms; skipped for the rest of this run`;
    };
    if (notifier.sendBatch) {
      const batch = owed.flatMap((o) => o.notifications);
      let results: unknown[];
      try {
        results = await bounded((signal) => notifier.sendBatch!(batch, signal), ms, this.o.signal);
        if (results.length !== batch.length)
          throw new CloudOpsError(
            `${notifier.name}: ${results.length} results for ${batch.length}`,
          );
      } catch (error) {
        timedOut(error);
        results = batch.map(() => error ?? new CloudOpsError('batch failed'));
      }
      let i = 0;
      for (const o of owed) {
        const ids = new Set<string>();
        for (const n of o.notifications) {
          const error = results[i++];
          if (error === undefined) ids.add(n.id);
          else
            this.fail({ claim: o.claim, notifications: [n] }, notifier, (error as Error).message);
        }
        this.record(o, notifier, ids);
      }
      return;
    }
    // One by one, in order within a record, records in parallel.
    await Promise.all(
      owed.map(async (o) => {
        const ids = new Set<string>();
        for (const n of o.notifications) {
          if (lane.stalled) {
            this.fail({ claim: o.claim, notifications: [n] }, notifier, lane.stalled);
            continue;
          }
          try {
            await bounded((signal) => notifier.send(n, signal), ms, this.o.signal);
            ids.add(n.id);
          } catch (error) {
            timedOut(error);
            this.fail({ claim: o.claim, notifications: [n] }, notifier, (error as Error).message);
          }
        }
        this.record(o, notifier, ids);
      }),
    );
  }

  /** Wait for every lane, then release what is still owed (within the bounds) for the next run. */
  async drain(): Promise<void> {
    for (;;) {
      const running = [...this.lanes.values()].map((l) => l.running).filter(Boolean);
      if (running.length === 0 && this.writes.size === 0) break;
      await Promise.all([...running, ...this.writes]);
    }
    await Promise.all(
      this.claims.map(async (claim) => {
        let dropped: DroppedDelivery[] = [];
        const ok = await claim
          .update((p) => {
            const bounded = boundPending(
              releasePending(p, this.o.runId),
              this.o.now(),
              this.o.limits,
            );
            dropped = bounded.dropped;
            return bounded.pending;
          })
          .catch((error: unknown) => {
            this.o.onStoreError(
              claim.where,
              `could not release pending deliveries: ${(error as Error).message}`,
            );
            return true;
          });
        if (!ok) this.o.onStoreError(claim.where, 'could not release pending deliveries');
        for (const d of dropped) this.o.onDropped(d, claim.where);
      }),
    );
  }
}
