import { CloudOpsError } from '../errors';
import type { PipeNotification } from '../pipes/types';

/** Somewhere notifications go. `send` resolves once delivered, or throws a NotifyError. */
export interface Notifier {
  /** Unique per configured notifier: pending deliveries are tracked by it. */
  readonly name: string;
  send(notification: PipeNotification, signal?: AbortSignal): Promise<void>;
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

/** A one-line subject, e.g. `[CRITICAL] orders: Running -> Failed`. */
export function subjectOf(n: PipeNotification): string {
  const change = n.from && n.to && n.from !== n.to ? `${n.from} -> ${n.to}` : n.to || n.from;
  return `[${n.severity.toUpperCase()}] pipe ${n.pipeName} ${n.kind}: ${change}`.slice(0, 100);
}
