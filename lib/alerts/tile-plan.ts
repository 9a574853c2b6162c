/**
 * The alerts a dashboard sync writes with its dashboard: the file's declarations on each tile
 * against the alerts cloudops marked for this dashboard key. Pure, computed before the
 * dashboard write (so a new tile has no id yet); tile-apply.ts executes it once the write
 * gave every tile its id.
 *
 * An alert is matched by the tile it watches (tile id) and its name, so a tile renamed with a
 * key keeps its alerts; a marker naming the tile differently is re-marked. Alerts on tiles the
 * dashboard write removes are left out: the service deletes those itself.
 *
 * A saved search holds alerts the same way: it is planned as one holder whose single "tile" is
 * the search itself (its id the savedSearchId), marked `s/<searchKey>/<alertName>`.
 */
import { diffValues, type FieldChange } from '../diff';
import { alertLinks, type Alert } from '../schemas';
import { alertShape } from './compare';
import type { TileAlertDeclaration } from './desired';
import { ownerId, parseMarker, type AlertOwner } from './marker';

/** One tile alert to create, update or delete (declared in the file on a tile). */
export interface AlertChange {
  action: 'create' | 'update' | 'delete';
  /** Alert name. */
  name: string;
  /** Tile name (desired for create/update, as on the service for delete). */
  tile: string;
  /** Tile identity in the marker: the tile's key, else its name. */
  tileIdentity: string;
  /** The alert id on the service (update, delete). */
  id?: string;
  /** Update: what differs, old → new. Create: every field as new. */
  changes: FieldChange[];
  /** Create/update: the declaration. */
  want?: TileAlertDeclaration;
  /** Update: a hand-made alert taken over with its dashboard (--adopt); it gets the marker. */
  adopt?: boolean;
  /** Update, delete: the alert's state on the service (ALERT, OK, PENDING, ...); read-only. */
  state?: string;
}

/** A tile as the planner needs it: identity, name, current id (none yet: a new tile), alerts. */
export interface AlertTile {
  identity: string;
  name: string;
  id: string | undefined;
  alerts: readonly TileAlertDeclaration[];
}

/** What the alerts sit on: a dashboard (by its key) or a saved search (by its key). */
export type AlertHolder =
  { kind: 'dashboard'; dashboardKey: string } | { kind: 'search'; searchKey: string };

export interface TileAlertsInput {
  holder: AlertHolder;
  /** The desired tiles, each with the id the dashboard write keeps (if any). */
  tiles: readonly AlertTile[];
  /** The alerts on the dashboard as the service holds them. */
  onDashboard: readonly Alert[];
  /** Tile id -> name on the service (names the tile of a delete). */
  tileNames: ReadonlyMap<string, string>;
  /** The dashboard is taken over (--adopt): its hand-made alerts are matched too. */
  adopt: boolean;
}

/** Every declaration as a create (a new dashboard, or alerts not read). */
export function newTileAlerts(tiles: readonly Omit<AlertTile, 'id'>[]): AlertChange[] {
  return tiles.flatMap((t) => t.alerts.map((a) => createChange(t, a)));
}

export function planTileAlerts(input: TileAlertsInput): AlertChange[] {
  const { holder, tiles, onDashboard, adopt } = input;
  // Adopting a dashboard adopts its hand-made alerts too (matched by tile and name).
  const managed = onDashboard.filter((a) => {
    const m = parseMarker(a.message);
    if (!m) return adopt;
    return heldBy(m.owner, holder);
  });
  const tileOf = (a: Alert) => linkOf(a, holder);
  const kept = new Set(tiles.map((t) => t.id).filter((id): id is string => id !== undefined));
  const used = new Set<string>();
  const out: AlertChange[] = [];
  for (const t of tiles) {
    for (const a of t.alerts) {
      const have =
        t.id === undefined
          ? undefined
          : managed.find(
              (m) => !used.has(m.id) && tileOf(m) === t.id && markerAlertName(m) === a.name,
            );
      if (!have) {
        out.push(createChange(t, a));
        continue;
      }
      used.add(have.id);
      const update = updateChange(holder, t, a, have);
      if (update) out.push(update);
    }
  }
  for (const m of managed) {
    const marker = parseMarker(m.message);
    // Unmatched hand-made alerts of an adopted dashboard stay: only marked ones are ours.
    const tileId = tileOf(m);
    if (used.has(m.id) || !tileId || !kept.has(tileId) || !marker) continue;
    out.push({
      action: 'delete',
      name: markerAlertName(m),
      tile: input.tileNames.get(tileId) ?? tileId,
      tileIdentity: marker.owner.kind === 'dashboard' ? marker.owner.tileName : t0(holder),
      id: m.id,
      changes: [],
      ...stateOf(m),
    });
  }
  return out;
}

function createChange(t: Omit<AlertTile, 'id'>, a: TileAlertDeclaration): AlertChange {
  return {
    action: 'create',
    name: a.name,
    tile: t.name,
    tileIdentity: t.identity,
    changes: diffValues({}, alertShape(a)),
    want: a,
  };
}

/** An update when a field or the marker differs, or the alert is hand-made (adopted). */
function updateChange(
  holder: AlertHolder,
  t: AlertTile,
  a: TileAlertDeclaration,
  have: Alert,
): AlertChange | undefined {
  const changes = diffValues(alertShape(have), alertShape(a));
  const marker = parseMarker(have.message);
  const wantOwner = ownerId(
    holder.kind === 'dashboard'
      ? {
          kind: 'dashboard',
          dashboardKey: holder.dashboardKey,
          tileName: t.identity,
          alertName: a.name,
        }
      : { kind: 'search', searchKey: holder.searchKey, alertName: a.name },
  );
  const adopt = marker === undefined;
  if (marker && ownerId(marker.owner) !== wantOwner)
    changes.push({ path: 'marker', from: ownerId(marker.owner), to: wantOwner });
  if (changes.length === 0 && !adopt) return undefined;
  return {
    action: 'update',
    name: a.name,
    tile: t.name,
    tileIdentity: t.identity,
    id: have.id,
    changes,
    want: a,
    ...(adopt ? { adopt } : {}),
    ...stateOf(have),
  };
}

/** A state is shown as the service says it (PENDING included), never checked or written. */
function stateOf(a: Alert): { state?: string } {
  return a.state ? { state: a.state } : {};
}

/** The one identity a saved search's "tile" has: the search holds its alerts itself. */
const t0 = (holder: AlertHolder) => (holder.kind === 'search' ? holder.searchKey : '');

/** The holder's alerts are the ones its marker names. */
function heldBy(owner: AlertOwner, holder: AlertHolder): boolean {
  if (holder.kind === 'dashboard')
    return owner.kind === 'dashboard' && owner.dashboardKey === holder.dashboardKey;
  return owner.kind === 'search' && owner.searchKey === holder.searchKey;
}

/** What an alert watches within its holder: a tile, or the saved search itself. */
function linkOf(a: Alert, holder: AlertHolder): string | undefined {
  const links = alertLinks(a);
  return holder.kind === 'dashboard' ? links.tileId : links.savedSearchId;
}

function markerAlertName(a: Alert): string {
  const m = parseMarker(a.message);
  return m && m.owner.kind !== 'request' ? m.owner.alertName : (a.name ?? '');
}
