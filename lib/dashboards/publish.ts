/** Sends `Dashboard Synced` events to EventBridge (batched by lib/events/put-events.ts). */
import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { CloudOpsError } from '../errors';
import { putEvents } from '../events/put-events';
import type { DashboardSyncedEvent } from './events';

/**
 * PutEvents answers 200 and reports failures per entry (throttling, internal errors): those
 * entries are sent once more, and any still refused are named (dashboard key and error code).
 */
export async function publishEvents(
  client: Pick<EventBridgeClient, 'send'>,
  eventBusName: string,
  events: readonly DashboardSyncedEvent[],
): Promise<number> {
  const entries: PutEventsRequestEntry[] = events.map((e) => ({
    EventBusName: eventBusName,
    Source: e.source,
    DetailType: e['detail-type'],
    Time: new Date(e.time),
    Detail: JSON.stringify(e.detail),
  }));
  const results = await putEvents(client, entries, { attempts: 2 });
  const refused = events.flatMap((event, i) => {
    const r = results[i];
    if (!r) return [];
    const reason =
      r.kind === 'rejected' ? `${r.code}${r.message ? `: ${r.message}` : ''}` : 'no result entry';
    return [`${event.detail.dashboardKey} (${reason})`];
  });
  if (refused.length > 0)
    throw new CloudOpsError(
      `EventBridge rejected ${refused.length} of ${events.length} Dashboard Synced event(s): ${refused.join('; ')}`,
    );
  return events.length;
}
