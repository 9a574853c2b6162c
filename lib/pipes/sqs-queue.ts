/** The fan-out queue on SQS: SendMessageBatch, 10 entries per call, per-entry results checked. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { CloudOpsError } from '../errors';
import { redactText } from '../redact';
import type { BatchQueue } from './enqueue';

/** SendMessageBatch: at most 10 entries per call (the bodies here are far below 256 KB). */
const BATCH_ENTRIES = 10;

export function sqsBatchQueue(options: { client: SQSClient; queueUrl: string }): BatchQueue {
  async function sendChunk(bodies: readonly string[], attempt: number): Promise<void> {
    const out = await options.client.send(
      new SendMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: bodies.map((MessageBody, i) => ({ Id: `m${i}`, MessageBody })),
      }),
    );
    const failed = (out.Failed ?? []).map((f) => ({ index: Number(f.Id?.slice(1)), f }));
    if (failed.length === 0) return;
    // Throttling or a transient error on some entries: send those once more, then give up.
    if (attempt < 2 && failed.every(({ f }) => !f.SenderFault))
      return sendChunk(
        failed.map(({ index }) => bodies[index]),
        attempt + 1,
      );
    const { f } = failed[0];
    throw new CloudOpsError(
      `SQS refused ${failed.length} of ${bodies.length} messages: ${f.Code ?? 'error'}: ${redactText(f.Message ?? '')}`,
    );
  }
  return {
    async send(bodies) {
      for (let i = 0; i < bodies.length; i += BATCH_ENTRIES)
        await sendChunk(bodies.slice(i, i + BATCH_ENTRIES), 1);
    },
  };
}
