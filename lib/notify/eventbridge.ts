/** EventBridge `Pipe State Changed` (source `cloudops`, detail per lib/events/schemas.ts). */
import {
  PutEventsCommand,
  type EventBridgeClient,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { DASHBOARDS_DRIFTED, pipeEventDetail, type PipeNotification } from './notification';
import { EVENT_SOURCE, PIPE_STATE_CHANGED } from '../events/schemas';
import { redactText } from '../redact';
import { chunks, NotifyError, type BatchResult, type Notifier } from './types';

export interface EventBridgeNotifierOptions {
  client: EventBridgeClient;
  /** @default 'default' */
  eventBusName?: string;
  /** @default 'eventbridge' */
  name?: string;
}

/** PutEvents limits: 10 entries and 256 KB per request. */
const BATCH_ENTRIES = 10;
const BATCH_BYTES = 262_144;

/** An entry's size as EventBridge counts it (Time counts 14 bytes). */
function entryBytes(entry: PutEventsRequestEntry): number {
  return (
    14 +
    Buffer.byteLength(entry.Source ?? '') +
    Buffer.byteLength(entry.DetailType ?? '') +
    Buffer.byteLength(entry.Detail ?? '')
  );
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

  async function putChunk(
    entries: PutEventsRequestEntry[],
    signal?: AbortSignal,
  ): Promise<BatchResult> {
    let out: PutEventsCommandOutput;
    try {
      out = await options.client.send(new PutEventsCommand({ Entries: entries }), {
        abortSignal: signal,
      });
    } catch (error) {
      const e = new NotifyError(`put events failed: ${redactText((error as Error).message)}`, {
        notifier: name,
        cause: error,
      });
      return entries.map(() => e);
    }
    // A 200 answer reports each entry at its request position: EventId, or ErrorCode.
    return entries.map((_, i) => {
      const result = out.Entries?.[i];
      if (result?.ErrorCode)
        return new NotifyError(
          `event rejected: ${result.ErrorCode}: ${redactText(result.ErrorMessage ?? '')}`,
          { notifier: name },
        );
      if (result?.EventId) return undefined;
      return new NotifyError('event rejected: no result for the entry', { notifier: name });
    });
  }

  async function sendBatch(list: readonly PipeNotification[], signal?: AbortSignal) {
    const results: BatchResult = [];
    for (const chunk of chunks(list.map(entryOf), BATCH_ENTRIES, BATCH_BYTES, entryBytes))
      results.push(...(await putChunk(chunk, signal)));
    return results;
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
