/**
 * The watchdog's bookkeeping of what it must deliver: a record written with the notifications
 * it claimed (conditional on the version read, so of two runs one wins), then one lane per
 * notifier that sends whatever is queued and strikes that notifier off in the store as soon as
 * it took it, so a run killed later never makes a working notifier send it again.
 */
import { CloudOpsError } from '../errors';
import type { Logger } from '../log';
import type { Notifier } from '../notify/types';
import type { PipeNotification } from '../notify/notification';
import {
  boundPending,
  markDelivered,
  releasePending,
  type DeliveryLimits,
  type DroppedDelivery,
} from './deliver';
import type { PendingDelivery } from './types';

export interface Where {
  serviceId: string;
  pipeId?: string;
}

export interface Versioned {
  version: number;
  pending: PendingDelivery[];
}

export interface RecordIo<R> {
  save(record: R): Promise<boolean>;
  reload(): Promise<R | undefined>;
}

/** Same content, ignoring what changes on every run anyway. */
function same<R extends Versioned>(a: R, b: R): boolean {
  return (
    JSON.stringify({ ...a, version: 0, lastSeenAt: 0 }) ===
    JSON.stringify({ ...b, version: 0, lastSeenAt: 0 })
  );
}

/** A record this run wrote; later changes to its pending list go through `update`. */
export class Claim<R extends Versioned = Versioned> {
  private current: R | undefined;
  private queued: {
    change: (pending: PendingDelivery[]) => PendingDelivery[];
    done: (ok: boolean) => void;
    failed: (error: unknown) => void;
  }[] = [];
  private flushing = false;

  constructor(
    readonly where: Where,
    record: R,
    private readonly io: RecordIo<R>,
    /** This run's claimed entries at claim time. */
    readonly claimed: readonly PendingDelivery[],
  ) {
    this.current = record;
  }

  /**
   * Apply `change` to the stored pending list; resolves true once written. Changes queued
   * while a write runs are written together; a version moved by another writer is re-read and
   * the write retried.
   */
  update(change: (pending: PendingDelivery[]) => PendingDelivery[]): Promise<boolean> {
    return new Promise<boolean>((done, failed) => {
      this.queued.push({ change, done, failed });
      if (!this.flushing) {
        this.flushing = true;
        void this.flush();
      }
    });
  }

  private async flush(): Promise<void> {
    await Promise.resolve(); // let changes made in the same tick join this write
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0);
      try {
        const ok = await this.write((p) => batch.reduce((acc, b) => b.change(acc), p));
        for (const b of batch) b.done(ok);
      } catch (error) {
        for (const b of batch) b.failed(error);
      }
    }
    this.flushing = false;
  }

  private async write(change: (pending: PendingDelivery[]) => PendingDelivery[]): Promise<boolean> {
    for (let attempt = 0; this.current && attempt < 5; attempt++) {
      const pending = change(this.current.pending);
      if (JSON.stringify(pending) === JSON.stringify(this.current.pending)) return true;
      const next = { ...this.current, pending, version: this.current.version + 1 };
      if (await this.io.save(next)) {
        this.current = next;
        return true;
      }
      this.current = await this.io.reload();
    }
    return false;
  }
}

/**
 * Write `candidate` unless nothing changed. Resolves the claim when the write won ('lost' when
 * another run wrote first, 'unchanged' when there was nothing to write).
 */
export async function claimRecord<R extends Versioned>(
  previous: R | undefined,
  candidate: R,
  io: RecordIo<R>,
  where: Where,
  runId: string,
  logger: Logger,
): Promise<Claim<R> | 'unchanged' | 'lost'> {
  if (previous && same(previous, candidate)) return 'unchanged';
  if (!(await io.save(candidate))) {
    logger.info('another run claimed this change; leaving it to that run', { ...where });
    return 'lost';
  }
  return new Claim(
    where,
    candidate,
    io,
    candidate.pending.filter((p) => p.claimedBy === runId),
  );
}

export interface DeliveryError {
  where: Where;
  notifier: string;
  message: string;
}

export interface DeliveryOptions {
  runId: string;
  notifiers: readonly Notifier[];
  limits: DeliveryLimits;
  now: () => number;
  logger: Logger;
  signal?: AbortSignal;
  onError(error: DeliveryError): void;
  /** A pending delivery given up (attempts, age or size): logged as an error and counted. */
  onDropped(dropped: DroppedDelivery, where: Where): void;
  /** A store write recording a delivery failed: the notification may be sent again. */
  onStoreError(where: Where, message: string): void;
}

interface Owed {
  claim: Claim;
  notifications: PipeNotification[];
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
export class Delivery {
  private readonly lanes = new Map<
    string,
    { queue: Owed[]; running?: Promise<void>; stalled?: string }
  >();
  private readonly claims: Claim[] = [];
  private readonly writes = new Set<Promise<unknown>>();

  constructor(private readonly o: DeliveryOptions) {
    for (const n of o.notifiers) this.lanes.set(n.name, { queue: [] });
  }

  add(claims: readonly Claim[]): void {
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

  private fail(o: Owed, notifier: Notifier, message: string) {
    for (const n of o.notifications) {
      this.o.onError({ where: o.claim.where, notifier: notifier.name, message });
      this.o.logger.warn('notification not delivered; it stays pending for the next run', {
        notificationId: n.id,
        notifier: notifier.name,
        error: message,
      });
    }
  }

  private record(o: Owed, notifier: Notifier, ids: Set<string>) {
    if (ids.size === 0) return;
    const write = o.claim
      .update((p) => markDelivered(p, this.o.runId, notifier.name, ids))
      .then(
        (ok) => {
          if (!ok)
            this.o.onStoreError(
              o.claim.where,
              'could not record delivery; the notification may be sent again',
            );
        },
        (error: unknown) =>
          this.o.onStoreError(
            o.claim.where,
            `could not record delivery; the notification may be sent again: ${(error as Error).message}`,
          ),
      );
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  private async send(notifier: Notifier, owed: Owed[], lane: { stalled?: string }) {
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
