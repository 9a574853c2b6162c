/**
 * The watchdog for any number of services: the scheduled run only enqueues the services, a
 * batch per message sized to one rate-limit window; a consumer lists one message's services,
 * notifies per service as soon as it is decided, and stops at its deadline, sending the
 * services it did not reach back to the queue (none is half-done, none is listed twice).
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';
import type { Logger } from '../log';
import { runWatchdog, type WatchdogDeps, type WatchdogResult } from './watchdog';
import type { WatchdogConfig } from './watchdog-config';

const watchdogBatchMessage = z.strictObject({
  /** One scheduled run: a service it finished is skipped when its message comes again. */
  runId: z.string().min(1),
  organizationId: z.string().min(1),
  serviceIds: z.array(z.string().min(1)).min(1),
  /** Epoch ms of the scheduled run (how far behind the queue is). */
  scheduledAt: z.number(),
});
export type WatchdogBatchMessage = z.infer<typeof watchdogBatchMessage>;

/** Parse one SQS body; a bad one names the message and the fields. */
export function parseBatchMessage(body: string, messageId: string): WatchdogBatchMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new ValidationError(`watchdog message ${messageId}: body is not JSON`, {
      source: messageId,
    });
  }
  return parseOrThrow(watchdogBatchMessage, json, messageId, `watchdog message ${messageId}`);
}

/** Consecutive batches of at most `size` services (pure). */
export function planBatches(serviceIds: readonly string[], size: number): string[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`services per message must be a positive integer, got ${size}`);
  const out: string[][] = [];
  for (let i = 0; i < serviceIds.length; i += size) out.push(serviceIds.slice(i, i + size));
  return out;
}

/** Where batches go (SQS in Lambda: lib/pipes/sqs-queue.ts). Rejects if any body was not taken. */
export interface BatchQueue {
  send(bodies: readonly string[]): Promise<void>;
}

interface EnqueueResult {
  runId: string;
  messages: number;
  services: number;
}

/** The scheduled half: no API request at all, only the queue. */
export async function enqueueServices(
  config: Pick<WatchdogConfig, 'organizationId' | 'serviceIds'>,
  options: { queue: BatchQueue; servicesPerMessage: number; now: () => number; runId?: string },
): Promise<EnqueueResult> {
  const runId = options.runId ?? randomUUID();
  const scheduledAt = options.now();
  const batches = planBatches(config.serviceIds, options.servicesPerMessage);
  await options.queue.send(
    batches.map((serviceIds) =>
      JSON.stringify({ runId, organizationId: config.organizationId, serviceIds, scheduledAt }),
    ),
  );
  return { runId, messages: batches.length, services: config.serviceIds.length };
}

interface ConsumeResult extends WatchdogResult {
  /** Services sent back to the queue (the deadline came first). */
  requeued: string[];
}

/**
 * The consumer half for one message: its services through one watchdog pass (bounded by
 * `stopSignal`), and what it did not reach sent back as a new message of the same run.
 */
export async function consumeBatch(
  config: WatchdogConfig,
  message: WatchdogBatchMessage,
  deps: Omit<WatchdogDeps, 'serviceIds' | 'resumeMarker' | 'runId'> & {
    queue: BatchQueue;
    logger: Logger;
  },
): Promise<ConsumeResult> {
  if (message.organizationId !== config.organizationId) {
    throw new ValidationError(
      `watchdog message of run ${message.runId}: organization ${message.organizationId} is not the configured one`,
      { source: message.runId },
    );
  }
  const result = await runWatchdog(config, {
    ...deps,
    serviceIds: message.serviceIds,
    resumeMarker: message.runId,
  });
  if (result.unfinished.length > 0) {
    await deps.queue.send([JSON.stringify({ ...message, serviceIds: result.unfinished })]);
    deps.logger.info('deadline reached; services sent back to the queue', {
      runId: message.runId,
      requeued: result.unfinished.length,
    });
  }
  return { ...result, requeued: result.unfinished };
}
