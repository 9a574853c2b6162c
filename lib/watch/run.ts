/**
 * One run of "claim → deliver once", the small executor every watcher shares: the records a
 * run decided are written with their notices pending (claimed by this run), their notices
 * delivered as soon as the caller hands the claims over, and what is still owed at the end
 * released for the next run. Failures are collected, never thrown: the caller reports them.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log';
import { claimRecord, type Claim, type RecordIo, type Versioned } from './claims';
import { Delivery } from './delivery';
import {
  boundPending,
  claimPending,
  DEFAULT_DELIVERY_LIMITS,
  dropUnknownNotifiers,
  newPending,
  type DeliveryLimits,
  type DroppedDelivery,
} from './ledger';
import type { Notice } from './notice';
import type { Notifier } from './notifiers/types';

interface WatchRunOptions {
  notifiers: readonly Notifier[];
  /** Wall-clock milliseconds (injected: tests drive time). */
  now: () => number;
  logger: Logger;
  /** @default a random UUID */
  runId?: string;
  signal?: AbortSignal;
  /** A run's hold on pending notices: a crashed run's are retaken after this. @default 5 min */
  leaseMs?: number;
  limits?: DeliveryLimits;
}

/** Something that went wrong for one record; `where` names it in the caller's terms. */
interface WatchFailure<W> {
  stage: 'notify' | 'store' | 'dropped';
  where: W;
  notifier?: string;
  message: string;
}

/** `W` names a record in the caller's terms; `N` is the notices the caller's records hold. */
export class WatchRun<W, N extends Notice = Notice> {
  readonly runId: string;
  /** Notices this run claimed (sent, or pending for the next run when a notifier failed). */
  readonly claimed: N[] = [];
  readonly failures: WatchFailure<W>[] = [];
  /** Pending notices given up (attempts, age or size); each is also a failure. */
  dropped = 0;
  private readonly delivery: Delivery<W>;
  private readonly names: string[];
  private readonly leaseMs: number;
  private readonly limits: DeliveryLimits;

  constructor(private readonly o: WatchRunOptions) {
    this.runId = o.runId ?? randomUUID();
    this.names = o.notifiers.map((n) => n.name);
    this.leaseMs = o.leaseMs ?? 5 * 60_000; // well beyond a watchdog run (2-minute Lambda timeout)
    this.limits = o.limits ?? DEFAULT_DELIVERY_LIMITS;
    this.delivery = new Delivery<W>({
      runId: this.runId,
      notifiers: o.notifiers,
      limits: this.limits,
      now: o.now,
      logger: o.logger,
      ...(o.signal ? { signal: o.signal } : {}),
      onError: (e) =>
        this.failures.push({
          stage: 'notify',
          where: e.where,
          notifier: e.notifier,
          message: e.message,
        }),
      onStoreError: (where, message) => this.failures.push({ stage: 'store', where, message }),
      onDropped: (d, where) => this.drop(d, where),
    });
  }

  private drop(d: DroppedDelivery, where: W): void {
    this.dropped += 1;
    this.o.logger.error('pending notice dropped', {
      where,
      noticeId: d.notification.id,
      reason: d.reason,
      notifiers: d.remaining,
    });
    this.failures.push({
      stage: 'dropped',
      where,
      message: `gave up delivering ${d.notification.id} to ${d.remaining.join(', ')} (${d.reason})`,
    });
  }

  /**
   * Write `next` with `notices` added to what `previous` still owes (re-claimed, bounded),
   * conditional on `previous`'s version. Resolves the claim when this run won; undefined when
   * nothing changed or another run wrote first (that run delivers).
   */
  async claim<R extends Versioned>(change: {
    previous: R | undefined;
    next: R;
    notices: readonly N[];
    io: RecordIo<R>;
    where: W;
    /** When the change was observed. */
    at: number;
  }): Promise<Claim<W, R> | undefined> {
    const { previous, at, where } = change;
    const carried = dropUnknownNotifiers(
      claimPending(previous?.pending ?? [], this.runId, at, this.leaseMs),
      this.names,
    );
    const bounded = boundPending(
      [
        ...carried,
        ...change.notices.flatMap((n) => newPending([n], this.owedTo(n), this.runId, at)),
      ],
      at,
      this.limits,
    );
    for (const d of bounded.dropped) this.drop(d, where);
    const candidate: R = Object.assign({}, change.next, {
      pending: bounded.pending,
      version: previous ? previous.version + 1 : 0,
    });
    const outcome = await claimRecord(
      previous,
      candidate,
      change.io,
      where,
      this.runId,
      this.o.logger,
    );
    if (typeof outcome === 'string') return undefined;
    // A record's pending entries are the notices its own claims added: all of the caller's N.
    this.claimed.push(...outcome.claimed.map((p) => p.notification as N));
    return outcome;
  }

  /** The notifiers a new notice is owed: each that accepts it (the routing table's choice). */
  private owedTo(n: Notice): string[] {
    return this.o.notifiers.filter((x) => x.accepts?.(n) ?? true).map((x) => x.name);
  }

  /** Start delivering these claims' notices (claims handed over together share batches). */
  deliver(claims: readonly Claim<W>[]): void {
    this.delivery.add(claims);
  }

  /** Wait for every delivery, then release what is still owed for the next run. */
  finish(): Promise<void> {
    return this.delivery.drain();
  }
}
