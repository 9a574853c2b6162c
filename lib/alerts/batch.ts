/** One queue batch: each record validated and provisioned alone; failures reported per record. */
import { alertEvent } from '../events/schemas';
import { parseEvent } from '../events/parse';
import { silentLogger, type Logger } from '../log';
import { redactText } from '../redact';
import type { AlertProvisioner, ProvisionResult } from './provision';

export interface QueueRecord {
  messageId: string;
  body: string;
}

export interface RecordOutcome {
  messageId: string;
  ok: boolean;
  /** Why the record failed: names the event and the field or the alert. */
  reason?: string;
  result?: ProvisionResult;
}

export interface BatchOutcome {
  /** The SQS partial batch response: only these records return to the queue. */
  batchItemFailures: { itemIdentifier: string }[];
  records: RecordOutcome[];
}

/**
 * Records run one after another: the per-owner work is short, the management API is rate
 * limited per key, and in-order processing keeps a batch's own events from racing.
 */
export async function provisionBatch(
  records: readonly QueueRecord[],
  provisioner: AlertProvisioner,
  options: { logger?: Logger; signal?: AbortSignal } = {},
): Promise<BatchOutcome> {
  const log = options.logger ?? silentLogger;
  const outcome: BatchOutcome = { batchItemFailures: [], records: [] };
  for (const record of records) {
    try {
      const event = parseEvent(alertEvent, record.body, record.messageId);
      const result = await provisioner.provision(event, {
        ref: record.messageId,
        signal: options.signal,
      });
      outcome.records.push({ messageId: record.messageId, ok: true, result });
    } catch (error) {
      const reason = redactText(error instanceof Error ? error.message : String(error));
      log.error('alert event failed', { messageId: record.messageId, reason });
      outcome.batchItemFailures.push({ itemIdentifier: record.messageId });
      outcome.records.push({ messageId: record.messageId, ok: false, reason });
    }
  }
  return outcome;
}
