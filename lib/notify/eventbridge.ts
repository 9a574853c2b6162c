/** EventBridge `Pipe State Changed` (source `cloudops`, detail per DESIGN.md). */
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { redactText } from '../redact';
import type { PipeNotification } from '../pipes/types';
import { NotifyError, type Notifier } from './types';

export interface EventBridgeNotifierOptions {
  client: EventBridgeClient;
  /** @default 'default' */
  eventBusName?: string;
  /** @default 'eventbridge' */
  name?: string;
}

export const PIPE_EVENT_SOURCE = 'cloudops';
export const PIPE_EVENT_DETAIL_TYPE = 'Pipe State Changed';

export function pipeEventDetail(n: PipeNotification) {
  const { organizationId, serviceId, pipeId, pipeName, from, to, severity, kind, at } = n;
  return {
    organizationId,
    serviceId,
    pipeId,
    pipeName,
    from,
    to,
    severity,
    kind,
    at,
    message: n.message,
  };
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
                Source: PIPE_EVENT_SOURCE,
                DetailType: PIPE_EVENT_DETAIL_TYPE,
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
