/**
 * The consumer half of the watchdog's fan-out (the scheduled half is ./enqueue.ts): a consumer
 * lists one message's services, notifies per service as soon as it is decided, and stops at its
 * deadline, sending the services it did not reach back to the queue (none is half-done, none is
 * listed twice).
 */
import { ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';
import type { Logger } from '../log';
import { watchdogBatchMessage, type BatchQueue, type WatchdogBatchMessage } from './enqueue';
import { runWatchdog, type WatchdogDeps, type WatchdogResult } from './watchdog';
import type { WatchdogConfig } from './watchdog-config';

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
