/** EventBridge `Pipe State Changed` (source `cloudops`, detail per lib/events/schemas.ts). */
import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { DASHBOARDS_DRIFTED, pipeEventDetail, type PipeNotification } from './notification';
import { EVENT_SOURCE, PIPE_STATE_CHANGED } from '../events/schemas';
import { putEvents, type Refusal } from '../events/put-events';
import { redactText } from '../redact';
import { NotifyError, type BatchResult, type Notifier } from './types';

export interface EventBridgeNotifierOptions {
  client: EventBridgeClient;
  /** @default 'default' */
  eventBusName?: string;
  /** @default 'eventbridge' */
  name?: string;
}

export function createEventBridgeNotifier(options: EventBridgeNotifierOptions): Notifier {
  const name = options.name ?? 'eventbridge';
  const entryOf = (n: PipeNotification): PutEventsRequestEntry => ({
    Source: EVENT_SOURCE,
    // A drift notice is not a pipe's state change: its own detail-type, the notice as detail.
    DetailType: n.about === 'dashboards' ? DASHBOARDS_DRIFTED : PIPE_STATE_CHANGED,
    Time: new Date(n.at),
    EventBusName: options.eventBusName ?? 'default',
    Detail: JSON.stringify(n.about === 'dashboards' ? n : pipeEventDetail(n)),
  });

  // One NotifyError per refusal: a failed call fails each of its entries with the same error.
  const errorOf = (refusals: Map<Refusal, NotifyError>, refusal: Refusal): NotifyError => {
    const known = refusals.get(refusal);
    if (known) return known;
    const error =
      refusal.kind === 'call-failed'
        ? new NotifyError(`put events failed: ${redactText((refusal.error as Error).message)}`, {
            notifier: name,
            cause: refusal.error,
          })
        : refusal.kind === 'rejected'
          ? new NotifyError(`event rejected: ${refusal.code}: ${redactText(refusal.message)}`, {
              notifier: name,
            })
          : new NotifyError('event rejected: no result for the entry', { notifier: name });
    refusals.set(refusal, error);
    return error;
  };

  async function sendBatch(
    list: readonly PipeNotification[],
    signal?: AbortSignal,
  ): Promise<BatchResult> {
    // Delivery is retried by the next watchdog run, so a refused entry is not sent again here.
    const results = await putEvents(options.client, list.map(entryOf), {
      signal,
      refuseOnCallFailure: true,
    });
    const refusals = new Map<Refusal, NotifyError>();
    return results.map((r) => (r ? errorOf(refusals, r) : undefined));
  }

  return {
    name,
    sendBatch,
    async send(n, signal) {
      const [error] = await sendBatch([n], signal);
      if (error) throw error;
    },
  };
}
