/**
 * The one EventBridge PutEvents batcher: entries go in order, at most 10 and 256 KB a call,
 * and an entry the answer does not accept can be sent again.
 */
import {
  PutEventsCommand,
  type EventBridgeClient,
  type PutEventsCommandOutput,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { chunks } from '../batches';

/** PutEvents limits: 10 entries and 256 KB per request. */
export const PUT_EVENTS_MAX_ENTRIES = 10;
export const PUT_EVENTS_MAX_BYTES = 262_144;

/** An entry's size as EventBridge counts it (Time counts 14 bytes). */
export function entryBytes(entry: PutEventsRequestEntry): number {
  return (
    14 +
    Buffer.byteLength(entry.Source ?? '') +
    Buffer.byteLength(entry.DetailType ?? '') +
    Buffer.byteLength(entry.Detail ?? '')
  );
}

/** Why an entry was not accepted. */
export type Refusal =
  /** The answer refused it: EventBridge's ErrorCode and ErrorMessage. */
  | { kind: 'rejected'; code: string; message: string }
  /** The answer held no result at its position (neither EventId nor ErrorCode). */
  | { kind: 'unanswered' }
  /** The call itself failed (network, credentials); one object for every entry of the call. */
  | { kind: 'call-failed'; error: unknown };

export interface PutEventsOptions {
  signal?: AbortSignal;
  /** Calls per chunk: entries still refused are sent again up to `attempts - 1` times. @default 1 */
  attempts?: number;
  /**
   * A failed call refuses its entries (`call-failed`) and the next chunks are still sent.
   * Otherwise the call's error rejects at once and no later chunk is sent.
   */
  refuseOnCallFailure?: boolean;
}

/** Sends every entry; resolves one result per entry, in order: undefined when accepted. */
export async function putEvents(
  client: Pick<EventBridgeClient, 'send'>,
  entries: readonly PutEventsRequestEntry[],
  options: PutEventsOptions = {},
): Promise<(Refusal | undefined)[]> {
  const attempts = options.attempts ?? 1;
  const results: (Refusal | undefined)[] = [];
  const indexed = entries.map((entry, index) => ({ entry, index }));
  for (const chunk of chunks(indexed, PUT_EVENTS_MAX_ENTRIES, PUT_EVENTS_MAX_BYTES, (x) =>
    entryBytes(x.entry),
  )) {
    let pending = chunk;
    for (let attempt = 1; pending.length > 0 && attempt <= attempts; attempt++) {
      const refusals = await putOnce(
        client,
        pending.map((x) => x.entry),
        options,
      );
      pending.forEach((x, i) => (results[x.index] = refusals[i]));
      pending = pending.filter((_, i) => refusals[i] !== undefined);
    }
  }
  return results;
}

async function putOnce(
  client: Pick<EventBridgeClient, 'send'>,
  entries: PutEventsRequestEntry[],
  options: PutEventsOptions,
): Promise<(Refusal | undefined)[]> {
  let out: PutEventsCommandOutput;
  try {
    out = await client.send(new PutEventsCommand({ Entries: entries }), {
      abortSignal: options.signal,
    });
  } catch (error) {
    if (!options.refuseOnCallFailure) throw error;
    const refusal: Refusal = { kind: 'call-failed', error };
    return entries.map(() => refusal);
  }
  // A 200 answer reports each entry at its request position: EventId, or ErrorCode.
  return entries.map((_, i): Refusal | undefined => {
    const result = out.Entries?.[i];
    if (result?.ErrorCode)
      return { kind: 'rejected', code: result.ErrorCode, message: result.ErrorMessage ?? '' };
    return result?.EventId ? undefined : { kind: 'unanswered' };
  });
}
