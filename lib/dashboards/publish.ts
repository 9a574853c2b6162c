/** Sends `Dashboard Synced` events to EventBridge, 10 per PutEvents call (the API's maximum). */
import {
  PutEventsCommand,
  type EventBridgeClient,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { CloudOpsError } from '../errors';
import type { DashboardSyncedEvent } from './events';

const BATCH = 10;

/**
 * PutEvents answers 200 and reports failures per entry (throttling, internal errors): those
 * entries are sent once more, and any still refused are named (dashboard key and error code).
 */
export async function publishEvents(
  client: Pick<EventBridgeClient, 'send'>,
  eventBusName: string,
  events: readonly DashboardSyncedEvent[],
): Promise<number> {
  const refused: string[] = [];
  for (let i = 0; i < events.length; i += BATCH) {
    let batch = events.slice(i, i + BATCH);
    for (let attempt = 1; batch.length > 0; attempt++) {
      const failures = await putBatch(client, eventBusName, batch);
      if (attempt === 2 || failures.length === 0) {
        refused.push(...failures.map((f) => `${f.event.detail.dashboardKey} (${f.reason})`));
        break;
      }
      batch = failures.map((f) => f.event);
    }
  }
  if (refused.length > 0)
    throw new CloudOpsError(
      `EventBridge rejected ${refused.length} of ${events.length} Dashboard Synced event(s): ${refused.join('; ')}`,
    );
  return events.length;
}

async function putBatch(
  client: Pick<EventBridgeClient, 'send'>,
  eventBusName: string,
  batch: readonly DashboardSyncedEvent[],
): Promise<{ event: DashboardSyncedEvent; reason: string }[]> {
  const entries: PutEventsRequestEntry[] = batch.map((e) => ({
    EventBusName: eventBusName,
    Source: e.source,
    DetailType: e['detail-type'],
    Time: new Date(e.time),
    Detail: JSON.stringify(e.detail),
  }));
  const out = await client.send(new PutEventsCommand({ Entries: entries }));
  if (!out.FailedEntryCount) return [];
  // Result entries are in request order; a failed one carries ErrorCode instead of EventId.
  return batch.flatMap((event, index) => {
    const entry = out.Entries?.[index];
    if (entry?.EventId && !entry.ErrorCode) return [];
    const reason = entry?.ErrorCode
      ? `${entry.ErrorCode}${entry.ErrorMessage ? `: ${entry.ErrorMessage}` : ''}`
      : 'no result entry';
    return [{ event, reason }];
  });
}
