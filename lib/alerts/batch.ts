/**
 * One queue batch: each record validated and provisioned alone, failures reported per record.
 * The batch is one session (provision.ts): the alerts are listed once for all its records, and
 * once more after their creates.
 */
import { CloudOpsError } from '../errors';
import { alertEvent } from '../events/schemas';
import { parseEvent } from '../events/parse';
import { silentLogger, type Logger } from '../log';
import { redactText } from '../redact';
import type { AlertProvisioner, ProvisionResult } from './provision';

export interface QueueRecord {
  messageId: string;
  body: string;
  /** SQS `ApproximateReceiveCount`: above 1 is a redelivery. */
  receiveCount?: number;
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
 * Records run one after another: the management API is rate limited per key, and in-order
 * processing keeps a batch's own events from racing. When `signal` aborts (the Lambda's time
 * is nearly up), records not started are returned to the queue untouched.
 */
export async function provisionBatch(
  records: readonly QueueRecord[],
  provisioner: AlertProvisioner,
  options: { logger?: Logger; signal?: AbortSignal } = {},
): Promise<BatchOutcome> {
  const log = options.logger ?? silentLogger;
  const outcome: BatchOutcome = { batchItemFailures: [], records: [] };
  const session = provisioner.session({ signal: options.signal });
  const started: QueueRecord[] = [];
  const failed = (record: QueueRecord, error: unknown) => {
    const reason = redactText(error instanceof Error ? error.message : String(error));
    log.error('alert event failed', { messageId: record.messageId, reason });
    outcome.batchItemFailures.push({ itemIdentifier: record.messageId });
    outcome.records.push({ messageId: record.messageId, ok: false, reason });
  };
  for (const record of records) {
    if (options.signal?.aborted) {
      failed(record, new CloudOpsError('not started: the invocation ran out of time'));
      continue;
    }
    let event;
    try {
      event = parseEvent(alertEvent, record.body, record.messageId);
    } catch (error) {
      failed(record, error);
      continue;
    }
    started.push(record);
    await session.add(event, {
      ref: record.messageId,
      redelivered: (record.receiveCount ?? 1) > 1,
    });
  }
  let results;
  try {
    results = await session.finish();
  } catch (error) {
    // Aborted or the re-list failed for good: every started record goes back to the queue.
    for (const record of started) failed(record, error);
    return outcome;
  }
  results.forEach((r, i) => {
    const record = started[i];
    if (r.ok) outcome.records.push({ messageId: record.messageId, ok: true, result: r.result });
    else failed(record, r.error);
  });
  return outcome;
}
