/** What an event asks for: the alerts it declares, each with its owner and the event's version. */
import { createHash } from 'node:crypto';
import { wireSource, type CreateAlertBody } from '../schemas';
import type { AlertEvent, DashboardSyncedDetail, DeclaredAlertDetail } from '../events/schemas';
import { ownerId, withMarker, type AlertOwner } from './marker';

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

/** An alert declared on a tile: what a dashboard file and a `Dashboard Synced` event say. */
export type TileAlertDeclaration = Pick<
  DeclaredAlertDetail,
  | 'name'
  | 'threshold'
  | 'thresholdMax'
  | 'thresholdType'
  | 'interval'
  | 'channel'
  | 'message'
  | 'numConsecutiveWindows'
  | 'scheduleOffsetMinutes'
  | 'scheduleStartAt'
>;

/** Where a tile alert points once its dashboard is written. */
export interface TileLink {
  dashboardId: string;
  tileId: string;
}

/**
 * The one builder of a tile alert (owner, marker id, create body), for the alerts a dashboard
 * sync writes itself and for those a `Dashboard Synced` event asks for. `tileIdentity` is the
 * tile's key, else its name: what the marker records.
 */
export function tileAlert(
  dashboardKey: string,
  tileIdentity: string,
  link: TileLink,
  declared: TileAlertDeclaration,
): DesiredAlert {
  const owner: AlertOwner = {
    kind: 'dashboard',
    dashboardKey,
    tileName: tileIdentity,
    alertName: declared.name,
  };
  return {
    owner,
    id: ownerId(owner),
    body: {
      source: 'tile',
      dashboardId: link.dashboardId,
      tileId: link.tileId,
      ...declaredFields(declared),
    },
  };
}

/** The builder of an alert declared on a saved search (a `kind: savedSearch` file's `alerts`). */
export function searchAlert(
  searchKey: string,
  savedSearchId: string,
  declared: TileAlertDeclaration,
): DesiredAlert {
  const owner: AlertOwner = { kind: 'search', searchKey, alertName: declared.name };
  return {
    owner,
    id: ownerId(owner),
    body: { source: 'saved_search', savedSearchId, ...declaredFields(declared) },
  };
}

/** What a declaration says, wherever the alert sits. */
function declaredFields(declared: TileAlertDeclaration) {
  return {
    name: declared.name,
    threshold: declared.threshold,
    ...(declared.thresholdMax !== undefined ? { thresholdMax: declared.thresholdMax } : {}),
    thresholdType: declared.thresholdType,
    interval: declared.interval,
    channel: declared.channel,
    ...(declared.message !== undefined ? { message: declared.message } : {}),
    ...scheduleOf(declared),
  };
}

/**
 * The August 2026 fields as a PUT must carry them: it replaces per field, so a set field is
 * always sent, and with neither schedule field `scheduleStartAt: null` clears a start time an
 * earlier write set (and resets the offset to 0, which is what "unset" means).
 */
export function scheduleOf(
  declared: Pick<
    TileAlertDeclaration,
    'numConsecutiveWindows' | 'scheduleOffsetMinutes' | 'scheduleStartAt'
  >,
): Partial<CreateAlertBody> {
  const { numConsecutiveWindows: windows, scheduleOffsetMinutes: offset } = declared;
  const startAt = declared.scheduleStartAt ?? (offset === undefined ? null : undefined);
  return {
    ...(windows !== undefined ? { numConsecutiveWindows: windows } : {}),
    ...(offset !== undefined ? { scheduleOffsetMinutes: offset } : {}),
    ...(startAt !== undefined ? { scheduleStartAt: startAt } : {}),
  };
}

/** A body of `d` with the marker of `version` as its message's last line. */
export function markedBody(
  d: DesiredAlert,
  version: string,
  body: CreateAlertBody = d.body,
): CreateAlertBody {
  return { ...body, message: withMarker(body.message, { owner: d.owner, version }) };
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
    const id = ownerId({
      kind: 'dashboard',
      dashboardKey: detail.dashboardKey,
      tileName: declared.tileName,
      alertName: declared.name,
    });
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
    const link = { dashboardId: detail.dashboardId, tileId };
    set.alerts.push(tileAlert(detail.dashboardKey, declared.tileName, link, declared));
  }
  return set;
}

/**
 * Whose version an event advances (also the keyed-mutex key): a dashboard event is a snapshot
 * of every alert of its dashboard key, a request owns its one key.
 */
export function versionOwner(event: AlertEvent): string {
  return event['detail-type'] === 'Dashboard Synced'
    ? dashboardVersionOwner(event.detail.dashboardKey)
    : `r/${encodeURIComponent(event.detail.key)}`;
}

/** The version owner of every alert declared on one dashboard (its `Dashboard Synced` events). */
export function dashboardVersionOwner(dashboardKey: string): string {
  return `d/${encodeURIComponent(dashboardKey)}`;
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
