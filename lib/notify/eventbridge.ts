/** EventBridge `Pipe State Changed` (source `cloudops`, detail per lib/events/schemas.ts). */
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { pipeEventDetail } from '../pipes/types';
import { EVENT_SOURCE, PIPE_STATE_CHANGED } from '../events/schemas';
import { redactText } from '../redact';
import { NotifyError, type Notifier } from './types';

export interface EventBridgeNotifierOptions {
  client: EventBridgeClient;
  /** @default 'default' */
  eventBusName?: string;
  /** @default 'eventbridge' */
  name?: string;
}

export function createEventBridgeNotifier(options: EventBridgeNotifierOptions): Notifier {
  const name = options.name ?? 'eventbridge';
  return {
    name,
    async send(n, signal) {
      let failed: string | undefined;
      try {
        const out = await options.client.send(
          new PutEventsCommand({
            Entries: [
              {
                Source: EVENT_SOURCE,
                DetailType: PIPE_STATE_CHANGED,
                Time: new Date(n.at),
                EventBusName: options.eventBusName ?? 'default',
                Detail: JSON.stringify(pipeEventDetail(n)),
              },
            ],
          }),
          { abortSignal: signal },
        );
        // PutEvents reports per-entry failures in a 200 answer.
        if (out.FailedEntryCount)
          failed = `${out.Entries?.[0]?.ErrorCode ?? 'error'}: ${out.Entries?.[0]?.ErrorMessage ?? ''}`;
      } catch (error) {
        throw new NotifyError(
          name,
          `put events failed: ${redactText((error as Error).message)}`,
          undefined,
          { cause: error },
        );
      }
      if (failed) throw new NotifyError(name, `event rejected: ${failed}`);
    },
  };
}
