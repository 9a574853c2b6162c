/** The `Dashboard Synced` event (DESIGN.md "Events"): one per dashboard in sync after an apply. */
import { DASHBOARD_SYNCED, EVENT_SOURCE, type DashboardSyncedEvent } from '../events/schemas';
import type { DashboardResult } from './apply';

export { DASHBOARD_SYNCED };
export type { DashboardSyncedDetail, DashboardSyncedEvent } from '../events/schemas';

export interface SyncedEventsOptions {
  /**
   * Only dashboards whose tiles or declared alerts changed (created, updated, or an alert
   * written). An unchanged dashboard's alerts are as the last event left them, so a no-op
   * drift run sends nothing for provision-alerts to list. @default false (every one in sync)
   */
  changedOnly?: boolean;
}

/** Created, updated and unchanged dashboards are in sync; deleted, aborted and failed are not. */
export function dashboardSyncedEvents(
  results: readonly DashboardResult[],
  now: Date,
  options: SyncedEventsOptions = {},
): DashboardSyncedEvent[] {
  const time = now.toISOString();
  return results
    .filter(
      (r) =>
        r.id && r.key && r.sourceFile && ['created', 'updated', 'unchanged'].includes(r.status),
    )
    .filter((r) => !options.changedOnly || r.status !== 'unchanged' || alertsWritten(r))
    .map((r) => ({
      source: EVENT_SOURCE,
      'detail-type': DASHBOARD_SYNCED,
      time,
      detail: {
        dashboardKey: r.key!,
        dashboardId: r.id!,
        name: r.name,
        sourceFile: r.sourceFile!,
        syncedAt: time,
        tiles: r.tiles,
        alerts: r.alerts,
      },
    }));
}

/** An alert of the dashboard was created, updated or deleted by this apply. */
function alertsWritten(r: DashboardResult): boolean {
  return (r.alertResults ?? []).some((a) => a.status === 'done');
}
