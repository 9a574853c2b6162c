/**
 * Claiming a record: it is written with the notices it owes (conditional on the version read,
 * so of two overlapping runs one wins), and later changes to its pending list (a notifier
 * struck off, what is left released) go through the claim, re-read when another writer moved.
 */
import type { Logger } from '../log';
import type { PendingDelivery } from './ledger';

/** What the ledger needs of a stored record: its version and its pending deliveries. */
export interface Versioned {
  version: number;
  pending: PendingDelivery[];
}

export interface RecordIo<R> {
  save(record: R): Promise<boolean>;
  reload(): Promise<R | undefined>;
}

/** Same content, ignoring what changes on every run anyway (the version, a `lastSeenAt`). */
function same<R extends Versioned>(a: R, b: R): boolean {
  return (
    JSON.stringify({ ...a, version: 0, lastSeenAt: 0 }) ===
    JSON.stringify({ ...b, version: 0, lastSeenAt: 0 })
  );
}

/**
 * A record this run wrote; later changes to its pending list go through `update`. `where`
 * names the record in the caller's terms (errors and logs carry it).
 */
export class Claim<W = unknown, R extends Versioned = Versioned> {
  private current: R | undefined;
  private queued: {
    change: (pending: PendingDelivery[]) => PendingDelivery[];
    done: (ok: boolean) => void;
    failed: (error: unknown) => void;
  }[] = [];
  private flushing = false;

  constructor(
    readonly where: W,
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
export async function claimRecord<W, R extends Versioned>(
  previous: R | undefined,
  candidate: R,
  io: RecordIo<R>,
  where: W,
  runId: string,
  logger: Logger,
): Promise<Claim<W, R> | 'unchanged' | 'lost'> {
  if (previous && same(previous, candidate)) return 'unchanged';
  if (!(await io.save(candidate))) {
    logger.info('another run claimed this change; leaving it to that run', { where });
    return 'lost';
  }
  return new Claim(
    where,
    candidate,
    io,
    candidate.pending.filter((p) => p.claimedBy === runId),
  );
}
