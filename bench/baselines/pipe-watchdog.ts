/**
 * Baseline of pipe-watchdog, the scheduled run as the stack deploys it (with its queue): it only
 * enqueues the services for the consumer, one SQS SendMessageBatch; no secret, no API request.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';

const sqs = new SQSClient({});

export async function handler(event: { queueUrl: string; body: string }): Promise<number> {
  const out = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: event.queueUrl,
      Entries: [{ Id: '0', MessageBody: event.body }],
    }),
  );
  return out.Successful?.length ?? 0;
}
