/** Sends `Dashboard Synced` events to EventBridge, 10 per PutEvents call (the API's maximum). */
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { CloudOpsError } from '../errors';
import type { DashboardSyncedEvent } from './events';

const BATCH = 10;

export async function publishEvents(
  client: Pick<EventBridgeClient, 'send'>,
  eventBusName: string,
  events: readonly DashboardSyncedEvent[],
): Promise<number> {
  let failed = 0;
  for (let i = 0; i < events.length; i += BATCH) {
    const batch = events.slice(i, i + BATCH);
    const out = await client.send(
      new PutEventsCommand({
        Entries: batch.map((e) => ({
          EventBusName: eventBusName,
          Source: e.source,
          DetailType: e['detail-type'],
          Time: new Date(e.time),
          Detail: JSON.stringify(e.detail),
        })),
      }),
    );
    failed += out.FailedEntryCount ?? 0;
  }
  if (failed > 0)
    throw new CloudOpsError(
      `EventBridge rejected ${failed} of ${events.length} Dashboard Synced event(s)`,
    );
  return events.length;
}
