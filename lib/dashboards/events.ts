/** The `Dashboard Synced` event (DESIGN.md "Events"): one per dashboard in sync after an apply. */
import { DASHBOARD_SYNCED, EVENT_SOURCE, type DashboardSyncedEvent } from '../events/schemas';
import type { DashboardResult } from './apply';

export { DASHBOARD_SYNCED };
export type { DashboardSyncedDetail, DashboardSyncedEvent } from '../events/schemas';

/** Created, updated and unchanged dashboards are in sync; deleted, aborted and failed are not. */
export function dashboardSyncedEvents(
  results: readonly DashboardResult[],
  now: Date,
): DashboardSyncedEvent[] {
  const time = now.toISOString();
  return results
    .filter(
      (r) =>
        r.id && r.key && r.sourceFile && ['created', 'updated', 'unchanged'].includes(r.status),
    )
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
