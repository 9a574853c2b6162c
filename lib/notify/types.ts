import { CloudOpsError, type ErrorOptions } from '../errors';
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
  readonly notifier: string;
  /** HTTP status when the receiver answered. */
  readonly status: number | undefined;
  /** The message is prefixed with the notifier's name. */
  constructor(message: string, options: ErrorOptions & { notifier: string; status?: number }) {
    super(`${options.notifier}: ${message}`, options);
    this.notifier = options.notifier;
    this.status = options.status;
  }
}

export { chunks } from '../batches';
