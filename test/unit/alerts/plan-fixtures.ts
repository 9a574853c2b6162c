/** Shared fixtures of the alert planner's tests: one dashboard `d1` with tiles Errors/Latency. */
import { desiredFromEvent, type DesiredSet } from '../../../lib/alerts';
import type { DashboardSyncedEvent } from '../../../lib/events';

export const V1 = '2025-01-01T00:00:01.000Z';
export const V2 = '2025-01-01T00:00:02.000Z';
export const V3 = '2025-01-01T00:00:03.000Z';
export const KEY = 'dashboards/a.yaml';

/** A Dashboard Synced event of `d1` at `version`, as the planner's desired set. */
export function synced(
  version: string,
  alerts: { tile: string; name: string; threshold?: number; interval?: '5m' | '1h' }[],
): DesiredSet {
  const event: DashboardSyncedEvent = {
    source: 'cloudops',
    'detail-type': 'Dashboard Synced',
    time: version,
    detail: {
      dashboardKey: KEY,
      dashboardId: 'd1',
      name: 'a',
      sourceFile: KEY,
      syncedAt: version,
      tiles: [
        { name: 'Errors', id: 't1' },
        { name: 'Latency', id: 't2' },
      ],
      alerts: alerts.map((a) => ({
        tileName: a.tile,
        name: a.name,
        threshold: a.threshold ?? 10,
        thresholdType: 'above',
        interval: a.interval ?? '5m',
        channel: { type: 'webhook', webhookId: 'w1' },
        message: `${a.name} fired`,
      })),
    },
  };
  return desiredFromEvent(event);
}
