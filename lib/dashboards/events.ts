/** The `Dashboard Synced` event (DESIGN.md "Events"): one per dashboard in sync after an apply. */
import { DASHBOARD_SYNCED, EVENT_SOURCE, type DashboardSyncedEvent } from '../events/schemas';
import type { DashboardResult } from './apply';
import { tileIdentity, type DashboardChange } from './plan';

export { DASHBOARD_SYNCED };
export type { DashboardSyncedDetail, DashboardSyncedEvent } from '../events/schemas';

export interface SyncedEventsOptions {
  /**
   * Only dashboards whose tiles or declared alerts changed (created, updated, or an alert
   * written). An unchanged dashboard's alerts are as the last event left them, so a no-op
   * drift run sends nothing for provision-alerts to list. @default false (every one in sync)
   */
  changedOnly?: boolean;
  /**
   * Keys sent even when unchanged: dashboards whose alerts provision-alerts has no settled
   * record of, so it records one and later runs need no alert list.
   */
  alsoKeys?: ReadonlySet<string>;
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
    .filter(
      (r) =>
        !options.changedOnly ||
        r.status !== 'unchanged' ||
        alertsWritten(r) ||
        options.alsoKeys?.has(r.key!) === true,
    )
    .map((r) => syncedEvent(r as Synced, time));
}

type Synced = Pick<DashboardResult, 'name' | 'tiles' | 'alerts'> & {
  key: string;
  id: string;
  sourceFile: string;
};

function syncedEvent(r: Synced, time: string): DashboardSyncedEvent {
  return {
    source: EVENT_SOURCE,
    'detail-type': DASHBOARD_SYNCED,
    time,
    detail: {
      dashboardKey: r.key,
      dashboardId: r.id,
      name: r.name,
      sourceFile: r.sourceFile,
      syncedAt: time,
      tiles: r.tiles,
      alerts: r.alerts,
    },
  };
}

/**
 * The event an apply of `change` would emit, predicted from the plan (as apply builds it:
 * tile identity -> the id the write keeps). Undefined when that cannot be known before the
 * write: a new dashboard, or an alert on a tile that gets a fresh id.
 */
export function plannedSyncedEvent(
  change: DashboardChange,
  now: Date,
): DashboardSyncedEvent | undefined {
  const want = change.desired;
  if (!want || !change.id || !change.key || change.sourceFile === undefined) return undefined;
  if (change.action !== 'update' && change.action !== 'unchanged') return undefined;
  const tiles: { name: string; id: string }[] = [];
  for (const [i, t] of want.tiles.entries()) {
    const id = change.tileIds?.[i];
    if (id === undefined) {
      if (t.alerts.length > 0) return undefined;
      continue;
    }
    tiles.push({ name: tileIdentity(t), id });
  }
  const alerts = want.tiles.flatMap((t) =>
    t.alerts.map((a) => ({ tileName: tileIdentity(t), ...a })),
  );
  const time = now.toISOString();
  return syncedEvent(
    {
      key: change.key,
      id: change.id,
      name: want.name,
      sourceFile: change.sourceFile,
      tiles,
      alerts,
    },
    time,
  );
}

/** An alert of the dashboard was created, updated or deleted by this apply. */
function alertsWritten(r: DashboardResult): boolean {
  return (r.alertResults ?? []).some((a) => a.status === 'done');
}
