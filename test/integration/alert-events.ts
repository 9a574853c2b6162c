/** Builders for the events and alert bodies the alert provisioning tests send. */
import {
  ALERT_PROVISION_REQUESTED,
  DASHBOARD_SYNCED,
  type AlertProvisionRequestedEvent,
  type DashboardSyncedEvent,
  type DeclaredAlertDetail,
} from '../../lib/events';
import type { CreateAlertBody, Dashboard } from '../../lib/schemas';

/** A fixed timeline: `ms` after 2025-01-01T00:00:00Z. */
export const iso = (ms: number) => new Date(Date.UTC(2025, 0, 1) + ms).toISOString();

export function declared(
  webhookId: string,
  tileName: string,
  name: string,
  threshold = 10,
  extra: Partial<DeclaredAlertDetail> = {},
): DeclaredAlertDetail {
  return {
    tileName,
    name,
    threshold,
    thresholdType: 'above',
    interval: '5m',
    channel: { type: 'webhook', webhookId },
    message: `${name} fired`,
    ...extra,
  };
}

export function syncedEvent(
  dash: Dashboard,
  alerts: DeclaredAlertDetail[],
  at: string,
  key = `dashboards/${dash.name}.yaml`,
): DashboardSyncedEvent {
  return {
    source: 'cloudops',
    'detail-type': DASHBOARD_SYNCED,
    time: at,
    detail: {
      dashboardKey: key,
      dashboardId: dash.id,
      name: dash.name,
      sourceFile: key,
      syncedAt: at,
      tiles: dash.tiles.map((t) => ({ name: t.name, id: t.id })),
      alerts,
    },
  };
}

export function requestEvent(
  key: string,
  alert: CreateAlertBody,
  at: string,
): AlertProvisionRequestedEvent {
  return {
    source: 'team.payments',
    'detail-type': ALERT_PROVISION_REQUESTED,
    time: at,
    detail: { key, alert },
  };
}

export function tileAlert(
  dash: Dashboard,
  tileName: string,
  webhookId: string,
  name: string,
  threshold: number,
): CreateAlertBody {
  const tile = dash.tiles.find((t) => t.name === tileName);
  if (!tile) throw new Error(`test set-up: no tile ${tileName}`);
  return {
    source: 'tile',
    dashboardId: dash.id,
    tileId: tile.id,
    name,
    threshold,
    thresholdType: 'above',
    interval: '1m',
    channel: { type: 'webhook', webhookId },
    message: `${name}!`,
  };
}
