/**
 * The scheduled watchdog's entry (functions/pipe-watchdog/handler.ts). As the stack deploys it,
 * it always has the queue and only enqueues the services for the consumer: one SendMessageBatch
 * per ten messages, no API request, no secret. It imports nothing else, so its bundle carries
 * no table, key, notifier or check (the consumer's entry is ./entry.ts).
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { createLogger } from '../log';
import { enqueueServices } from './enqueue';
import { readEnqueueSettings } from './queue-config';
import { sqsBatchQueue } from './sqs-queue';

export interface EnqueueEntryOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  sqs?: SQSClient;
  /** Epoch ms (the messages' scheduled time). */
  now?: () => number;
}

/** What one scheduled run did: the run's id, the messages sent and the services in them. */
export interface EnqueueSummary {
  enqueued: { runId: string; messages: number; services: number };
}

/** Reads the settings once (a missing or bad one fails here, named) and returns the run. */
export function enqueueEntry(options: EnqueueEntryOptions = {}): () => Promise<EnqueueSummary> {
  const settings = readEnqueueSettings(options.env);
  const logger = createLogger({
    level: settings.logLevel,
    fields: { function: 'pipe-watchdog' },
  });
  const queue = sqsBatchQueue({
    client: options.sqs ?? new SQSClient({}),
    queueUrl: settings.queueUrl,
  });
  const now = options.now ?? Date.now;
  return async function enqueue() {
    const enqueued = await enqueueServices(settings, {
      queue,
      servicesPerMessage: settings.servicesPerMessage,
      now,
    });
    logger.info('services enqueued for the watchdog consumer', { ...enqueued });
    return { enqueued };
  };
}
