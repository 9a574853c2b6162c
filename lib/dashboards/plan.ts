/**
 * The plan, as data: what apply would do to each dashboard and each tile. Computing it
 * prints nothing (render.ts draws it). Costs one request (the list) unless a tile removal or
 * a delete is planned, in which case the alert list is read to name the alerts it would kill.
 */
import type { ObservabilityBackend } from '../api/observability-backend';
import type { CallOptions } from '../api/http';
import { alertLinks, type Alert, type Dashboard, type DashboardWrite } from '../schemas';
import { normalizeTags, normalizeTile, tileDiff, tileWrite, type TileField } from './normalize';
import { identityTag, ownerTag, withMarker } from './ownership';
import type { DesiredDashboard } from './types';

export type DashboardAction = 'create' | 'update' | 'delete' | 'unchanged';

export interface AlertRef {
  id: string;
  name?: string;
  tileName?: string;
}

export interface TileChange {
  kind: 'added' | 'changed' | 'moved' | 'removed';
  name: string;
  /** The current id (changed, moved, removed): kept by the write except for removed. */
  id?: string;
  /** For changed/moved: which fields differ. */
  fields?: TileField[];
  /** For removed: alerts the service deletes with the tile. */
  alerts?: AlertRef[];
}

export interface DashboardChange {
  action: DashboardAction;
  /** Identity of the file; absent for a delete (the marker holds only a hash). */
  key?: string;
  name: string;
  sourceFile?: string;
  /** The service id (update, delete, unchanged). */
  id?: string;
  /** True when a hand-made dashboard is taken over (--adopt). */
  adopted?: boolean;
  /** Dashboard-level differences, e.g. `name`, `tags`. */
  fields: { name?: { from: string; to: string }; tags?: { added: string[]; removed: string[] } };
  tiles: TileChange[];
  /** Every alert this change deletes (removed tiles, or the whole dashboard). */
  alertsDeleted: AlertRef[];
  /** Why a delete is planned. */
  reason?: string;
  /** Internal: the desired file and the dashboard as the plan saw it (apply compares). */
  desired?: DesiredDashboard;
  seen?: Dashboard;
}

export interface PlanOptions {
  /** Delete owned dashboards that no file declares. @default false */
  readonly prune?: boolean;
  /** Take over a hand-made dashboard with the same name instead of creating a new one. @default false */
  readonly adopt?: boolean;
}

export interface Plan {
  changes: DashboardChange[];
  counts: Record<DashboardAction, number>;
  /** Things apply will not touch but a person should know (orphans without --prune, name clashes). */
  notes: string[];
  /** True when apply would write anything. */
  pending: boolean;
}

/** Reads the service and plans. Steady state: exactly one request (the dashboard list). */
export async function planDashboards(
  desired: readonly DesiredDashboard[],
  backend: Pick<ObservabilityBackend, 'listDashboards' | 'listAlerts'>,
  options: PlanOptions = {},
  call: CallOptions = {},
): Promise<Plan> {
  const actual = await backend.listDashboards(call);
  const plan = computePlan(desired, actual, options);
  const removesTiles = plan.changes.some(
    (c) => c.action === 'delete' || c.tiles.some((t) => t.kind === 'removed'),
  );
  return removesTiles ? withAlerts(plan, await backend.listAlerts(call)) : plan;
}

export function computePlan(
  desired: readonly DesiredDashboard[],
  actual: readonly Dashboard[],
  options: PlanOptions = {},
): Plan {
  const owned = new Map<string, Dashboard[]>();
  const handMade: Dashboard[] = [];
  for (const d of [...actual].sort((a, b) => a.id.localeCompare(b.id))) {
    const tag = ownerTag(d.tags);
    if (tag) owned.set(tag, [...(owned.get(tag) ?? []), d]);
    else handMade.push(d);
  }
  const changes: DashboardChange[] = [];
  const notes: string[] = [];
  const adoptedIds = new Set<string>();
  const claimed = new Set<string>();

  for (const want of [...desired].sort((a, b) => a.key.localeCompare(b.key))) {
    const tag = identityTag(want.key);
    claimed.add(tag);
    const [mine, ...duplicates] = owned.get(tag) ?? [];
    for (const dup of duplicates) {
      if (options.prune)
        changes.push(deleteChange(dup, `duplicate of "${want.key}" (keeping ${mine.id})`));
      else
        notes.push(
          `dashboard "${dup.name}" (${dup.id}) duplicates "${want.key}"; --prune deletes it`,
        );
    }
    const sameName = handMade.filter((d) => d.name === want.name && !adoptedIds.has(d.id));
    let target = mine;
    let adopted = false;
    if (!target && sameName.length > 0) {
      if (options.adopt && sameName.length === 1) {
        target = sameName[0];
        adopted = true;
        adoptedIds.add(target.id);
      } else if (options.adopt) {
        notes.push(
          `${sameName.length} hand-made dashboards are named "${want.name}": none adopted, a new one is created`,
        );
      } else {
        const ids = sameName.map((d) => d.id).join(', ');
        notes.push(
          `hand-made dashboard "${want.name}" (${ids}) is left alone; --adopt would take it over`,
        );
      }
    }
    changes.push(target ? diffChange(want, target, adopted) : createChange(want));
  }

  for (const [tag, list] of owned) {
    if (claimed.has(tag)) continue;
    for (const d of list) {
      if (options.prune) changes.push(deleteChange(d, 'no dashboard file declares it'));
      else notes.push(`owned dashboard "${d.name}" (${d.id}) has no file; --prune deletes it`);
    }
  }
  return summarize(changes, notes);
}

function summarize(changes: DashboardChange[], notes: string[]): Plan {
  const counts: Record<DashboardAction, number> = { create: 0, update: 0, delete: 0, unchanged: 0 };
  for (const c of changes) counts[c.action] += 1;
  return { changes, counts, notes, pending: counts.create + counts.update + counts.delete > 0 };
}

function createChange(want: DesiredDashboard): DashboardChange {
  return {
    action: 'create',
    key: want.key,
    name: want.name,
    sourceFile: want.sourceFile,
    fields: {},
    tiles: want.tiles.map((t) => ({ kind: 'added', name: t.name })),
    alertsDeleted: [],
    desired: want,
  };
}

function deleteChange(d: Dashboard, reason: string): DashboardChange {
  return {
    action: 'delete',
    name: d.name,
    id: d.id,
    fields: {},
    tiles: [],
    alertsDeleted: [],
    reason,
    seen: d,
  };
}

/** Matches tiles by name: the first actual tile of a name keeps its id, later ones are removed. */
export function matchTiles(want: DesiredDashboard, actual: Dashboard): Map<string, string> {
  const ids = new Map<string, string>();
  for (const t of actual.tiles) if (!ids.has(t.name)) ids.set(t.name, t.id);
  const wanted = new Set(want.tiles.map((t) => t.name));
  for (const name of [...ids.keys()]) if (!wanted.has(name)) ids.delete(name);
  return ids;
}

function diffChange(want: DesiredDashboard, actual: Dashboard, adopted: boolean): DashboardChange {
  const fields: DashboardChange['fields'] = {};
  if (want.name !== actual.name) fields.name = { from: actual.name, to: want.name };
  const wantTags = withMarker(want.tags, want.key);
  const haveTags = normalizeTags(actual.tags);
  const added = wantTags.filter((t) => !haveTags.includes(t));
  const removed = haveTags.filter((t) => !wantTags.includes(t));
  if (added.length + removed.length > 0) fields.tags = { added, removed };

  const kept = matchTiles(want, actual);
  const byId = new Map(actual.tiles.map((t) => [t.id, t]));
  const tiles: TileChange[] = [];
  for (const t of want.tiles) {
    const id = kept.get(t.name);
    if (id === undefined) {
      tiles.push({ kind: 'added', name: t.name });
      continue;
    }
    const diff = tileDiff(normalizeTile(t), normalizeTile(byId.get(id)!));
    if (diff.length === 0) continue;
    const moved = diff.every((f) => f === 'x' || f === 'y');
    tiles.push({ kind: moved ? 'moved' : 'changed', name: t.name, id, fields: diff });
  }
  const keptIds = new Set(kept.values());
  for (const t of actual.tiles) {
    if (!keptIds.has(t.id)) tiles.push({ kind: 'removed', name: t.name, id: t.id, alerts: [] });
  }
  const changed = fields.name !== undefined || fields.tags !== undefined || tiles.length > 0;
  return {
    action: changed ? 'update' : 'unchanged',
    key: want.key,
    name: want.name,
    sourceFile: want.sourceFile,
    id: actual.id,
    ...(adopted ? { adopted } : {}),
    fields,
    tiles,
    alertsDeleted: [],
    desired: want,
    seen: actual,
  };
}

/** Names the alerts each removal would delete (the service deletes them with their tile). */
export function withAlerts(plan: Plan, alerts: readonly Alert[]): Plan {
  const changes = plan.changes.map((c) => {
    if (c.id === undefined) return c;
    const tileNames = new Map((c.seen?.tiles ?? []).map((t) => [t.id, t.name]));
    // Links under either spelling (dashboardId/tileId today, dashboard/tileId in the spec).
    const onDashboard = alerts.filter((a) => alertLinks(a).dashboardId === c.id);
    const ref = (a: Alert): AlertRef => {
      const tileId = alertLinks(a).tileId;
      return {
        id: a.id,
        ...(typeof a.name === 'string' ? { name: a.name } : {}),
        ...(tileId ? { tileName: tileNames.get(tileId) } : {}),
      };
    };
    if (c.action === 'delete') return { ...c, alertsDeleted: onDashboard.map(ref) };
    const tiles = c.tiles.map((t) =>
      t.kind === 'removed'
        ? { ...t, alerts: onDashboard.filter((a) => alertLinks(a).tileId === t.id).map(ref) }
        : t,
    );
    return { ...c, tiles, alertsDeleted: tiles.flatMap((t) => t.alerts ?? []) };
  });
  return { ...plan, changes };
}

/** The body a create or update sends: existing tiles carry their current id. */
export function writeBody(want: DesiredDashboard, current?: Dashboard): DashboardWrite {
  const ids = current ? matchTiles(want, current) : new Map<string, string>();
  return {
    name: want.name,
    tags: withMarker(want.tags, want.key),
    tiles: want.tiles.map((t) => tileWrite(t, ids.get(t.name))),
  };
}
