import { CloudOpsError } from '../errors';
import type { PipeNotification } from './notification';

export { describeChange, subjectOf } from './notification';

/** One result per notification of a batch, same order: undefined when delivered. */
export type BatchResult = (NotifyError | undefined)[];

/** Somewhere notifications go. `send` resolves once delivered, or throws a NotifyError. */
export interface Notifier {
  /** Unique per configured notifier: pending deliveries are tracked by it. */
  readonly name: string;
  send(notification: PipeNotification, signal?: AbortSignal): Promise<void>;
  /**
   * Several notifications in as few calls as the receiver allows (used instead of `send` when
   * present). Resolves one result per notification, in order; a failed call fails its entries,
   * so it does not reject.
   */
  sendBatch?(
    notifications: readonly PipeNotification[],
    signal?: AbortSignal,
  ): Promise<BatchResult>;
}

export class NotifyError extends CloudOpsError {
  override name = 'NotifyError';
  constructor(
    readonly notifier: string,
    message: string,
    /** HTTP status when the receiver answered. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`${notifier}: ${message}`, options);
  }
}

/**
 * Consecutive chunks of at most `maxEntries` items and `maxBytes` summed size (an item larger
 * than `maxBytes` goes alone: the receiver rejects that entry, not its neighbours).
 */
export function chunks<T>(
  items: readonly T[],
  maxEntries: number,
  maxBytes: number,
  size: (item: T) => number,
): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const n = size(item);
    if (current.length > 0 && (current.length >= maxEntries || bytes + n > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}
