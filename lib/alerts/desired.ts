/** What an event asks for: the alerts it declares, each with its owner and the event's version. */
import { createHash } from 'node:crypto';
import { wireSource, type CreateAlertBody } from '../schemas';
import type { AlertEvent, DashboardSyncedDetail } from '../events/schemas';
import { ownerId, type AlertOwner } from './marker';

export interface DesiredAlert {
  owner: AlertOwner;
  /** ownerId(owner), cached. */
  id: string;
  /** Create body without the marker (message = what the declaration said). */
  body: CreateAlertBody;
}

export interface DesiredSet {
  /** ISO time of the event: the version written into markers. */
  version: string;
  alerts: DesiredAlert[];
  /** Dashboard events own every marked alert of this dashboard key (orphans are deleted). */
  dashboardKey?: string;
  /** Owners declared but not applicable (e.g. unknown tile): never treated as orphans. */
  blocked: { id: string; name: string; reason: string }[];
}

export function desiredFromEvent(event: AlertEvent): DesiredSet {
  if (event['detail-type'] === 'Alert Provision Requested') {
    const owner: AlertOwner = { kind: 'request', key: event.detail.key };
    return {
      version: event.time,
      // The service's word for a saved-search source is `saved_search`; events may say `search`.
      alerts: [
        {
          owner,
          id: ownerId(owner),
          body: {
            ...event.detail.alert,
            source: wireSource(event.detail.alert.source) as CreateAlertBody['source'],
          },
        },
      ],
      blocked: [],
    };
  }
  return desiredFromDashboard(event.detail);
}

function desiredFromDashboard(detail: DashboardSyncedDetail): DesiredSet {
  const tileIds = new Map(detail.tiles.map((t) => [t.name, t.id]));
  const set: DesiredSet = {
    version: detail.syncedAt,
    alerts: [],
    dashboardKey: detail.dashboardKey,
    blocked: [],
  };
  for (const declared of detail.alerts) {
    const owner: AlertOwner = {
      kind: 'dashboard',
      dashboardKey: detail.dashboardKey,
      tileName: declared.tileName,
      alertName: declared.name,
    };
    const id = ownerId(owner);
    const tileId = tileIds.get(declared.tileName);
    if (!tileId) {
      const known = [...tileIds.keys()].map((n) => `"${n}"`).join(', ') || 'none';
      set.blocked.push({
        id,
        name: declared.name,
        reason: `alert "${declared.name}" is declared on tile "${declared.tileName}", which dashboard "${detail.dashboardKey}" does not have (tiles: ${known})`,
      });
      continue;
    }
    if (set.alerts.some((a) => a.id === id)) {
      set.blocked.push({
        id,
        name: declared.name,
        reason: `alert "${declared.name}" is declared twice on tile "${declared.tileName}" of dashboard "${detail.dashboardKey}"`,
      });
      continue;
    }
    set.alerts.push({
      owner,
      id,
      body: {
        source: 'tile',
        dashboardId: detail.dashboardId,
        tileId,
        name: declared.name,
        threshold: declared.threshold,
        ...(declared.thresholdMax !== undefined ? { thresholdMax: declared.thresholdMax } : {}),
        thresholdType: declared.thresholdType,
        interval: declared.interval,
        channel: declared.channel,
        ...(declared.message !== undefined ? { message: declared.message } : {}),
      },
    });
  }
  return set;
}

/**
 * Whose version an event advances (also the keyed-mutex key): a dashboard event is a snapshot
 * of every alert of its dashboard key, a request owns its one key.
 */
export function versionOwner(event: AlertEvent): string {
  return event['detail-type'] === 'Dashboard Synced'
    ? `d/${encodeURIComponent(event.detail.dashboardKey)}`
    : `r/${encodeURIComponent(event.detail.key)}`;
}

/**
 * A fingerprint of what an event asks for (owners, bodies, blocked declarations), without its
 * version: two events with the same digest want the same alerts.
 */
export function desiredDigest(set: DesiredSet): string {
  const canonical = JSON.stringify({
    dashboardKey: set.dashboardKey ?? null,
    alerts: set.alerts
      .map((a) => [a.id, sortKeys(a.body)] as const)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
    blocked: set.blocked.map((b) => b.id).sort(),
  });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}
