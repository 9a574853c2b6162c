/**
 * The plan, as data: what apply would do to each dashboard, each tile and each tile alert,
 * with old → new values. Computing it prints nothing (render.ts draws it).
 *
 * Requests: one (the dashboard list) unless alerts matter; the alert list is read too when a
 * file declares alerts, an owned dashboard carries the alerts tag, or a tile removal or a
 * delete is planned (to name the alerts it would kill).
 *
 * Ownership is per owner (`--owner`): only this owner's dashboards are updated or pruned;
 * another owner's dashboard with the same key is a conflict, never taken over.
 */
import type { ObservabilityBackend } from '../api/observability-backend';
import type { CallOptions } from '../api/http';
import { parseMarker } from '../alerts/marker';
import {
  newTileAlerts,
  planTileAlerts,
  type AlertChange,
  type AlertTile,
} from '../alerts/tile-plan';
import { alertLinks, type Alert, type Dashboard, type DashboardWrite, type Tile } from '../schemas';
import type { RateLimitConfig } from '../api/rate-limiter';
import type { FieldChange } from '../diff';
import { ValidationError } from '../errors';
import { planCost, type PlanCost } from './cost';
import { filterChanges, normalizeTags, tileChanges, tileWrite } from './normalize';
import {
  ALERTS_TAG,
  DEFAULT_OWNER,
  identityTag,
  ownerOf,
  isReservedTag,
  ownerTag,
  withMarker,
  isKeyTag,
} from './ownership';
import type { ObjectChange } from './objects-plan';
import type { DesiredDashboard, DesiredTile } from './types';

export type DashboardAction = 'create' | 'update' | 'delete' | 'unchanged' | 'conflict';

export interface AlertRef {
  id: string;
  name?: string;
  tileName?: string;
}

export interface TileChange {
  kind: 'added' | 'changed' | 'moved' | 'renamed' | 'removed';
  name: string;
  /** For renamed: the name on the service. */
  from?: string;
  /** The current id (changed, moved, renamed, removed): kept by the write except for removed. */
  id?: string;
  /** For changed/moved/renamed: which top-level fields differ. */
  fields?: string[];
  /** For changed/moved/renamed: every differing leaf, old → new. */
  changes?: FieldChange[];
  /** For removed: alerts the service deletes with the tile. */
  alerts?: AlertRef[];
  /** For removed: why this looks like a rename that loses alerts. */
  warning?: string;
}

export interface DashboardChange {
  action: DashboardAction;
  /** Identity of the file; absent for a delete (the marker holds only a hash). */
  key?: string;
  name: string;
  sourceFile?: string;
  /** The service id (update, delete, unchanged, conflict). */
  id?: string;
  /** True when a hand-made dashboard is taken over (--adopt). */
  adopted?: boolean;
  /** Dashboard-level differences, e.g. `name`, `tags`. */
  fields: {
    name?: { from: string; to: string };
    tags?: { added: string[]; removed: string[] };
    /** The ownership marker tags are written (adoption, a new owner or alerts tag). */
    marker?: boolean;
    /** Dashboard filters, old -> new (only when the file declares them). */
    filters?: FieldChange[];
  };
  tiles: TileChange[];
  /** Tile alerts to create/update/delete (also on an otherwise unchanged dashboard). */
  alerts: AlertChange[];
  /** Every alert this change deletes with tiles (removed tiles, or the whole dashboard). */
  alertsDeleted: AlertRef[];
  /** Why a delete or a conflict is planned. */
  reason?: string;
  /** Internal: the desired file and the dashboard as the plan saw it (apply compares). */
  desired?: DesiredDashboard;
  seen?: Dashboard;
  /** Internal: the current tile id per desired tile (by index), kept by the write. */
  tileIds?: (string | undefined)[];
  /** Internal: the alerts of this dashboard as the plan saw them (saved plans compare). */
  seenAlerts?: Alert[];
}

export interface PlanOptions {
  /** Delete owned dashboards that no file declares. @default false */
  readonly prune?: boolean;
  /** Take over a hand-made dashboard with the same name instead of creating a new one. @default false */
  readonly adopt?: boolean;
  /** Whose dashboards these are. @default DEFAULT_OWNER */
  readonly owner?: string;
  /** Only these dashboard keys (and, with prune, only orphans with these keys). */
  readonly targets?: readonly string[];
  /**
   * Keys files declare for the other services of the run: a `--target` naming one of them is
   * not reported as matching nothing here.
   */
  readonly declaredElsewhere?: readonly string[];
  /**
   * With prune, allow a plan that deletes every owned dashboard because the files declare none
   * (an emptied bucket or folder looks exactly like that). @default false
   */
  readonly allowDeleteAll?: boolean;
  /**
   * Dashboards declared by files the run did not read (a manifest vouched them in sync): the
   * source is not empty although `desired` is. @default 0
   */
  readonly declaredUnread?: number;
  /** The key's rate limit, for the plan's cost. @default the management key's, 10 per 10 s */
  readonly rateLimit?: Pick<RateLimitConfig, 'limit' | 'windowMs'>;
}

export interface Plan {
  changes: DashboardChange[];
  counts: Record<DashboardAction, number>;
  alertCounts: { create: number; update: number; delete: number };
  /** Things apply will not touch but a person should know (orphans without --prune, name clashes). */
  notes: string[];
  /** True when apply would write anything (dashboards or alerts). */
  pending: boolean;
  /** The owner planned for. */
  owner: string;
  /** True when the alert list was read (alert changes are then complete). */
  alertsRead: boolean;
  /** What the apply costs (absent in a plan saved by an older cloudops). */
  cost?: PlanCost;
  /** The folder's webhooks and saved searches (with the alerts on the searches). */
  objects?: ObjectChange[];
}

type PlanBackend = Pick<ObservabilityBackend, 'listDashboards' | 'listAlerts'>;

/** Reads the service and plans. Steady state without alerts: exactly one request. */
export async function planDashboards(
  desired: readonly DesiredDashboard[],
  backend: PlanBackend,
  options: PlanOptions = {},
  call: CallOptions = {},
): Promise<Plan> {
  const actual = await backend.listDashboards(call);
  const first = computePlan(desired, actual, options);
  if (!needsAlerts(first, desired, actual, options)) return first;
  return computePlan(desired, actual, options, await backend.listAlerts(call));
}

function needsAlerts(
  plan: Plan,
  desired: readonly DesiredDashboard[],
  actual: readonly Dashboard[],
  options: PlanOptions,
): boolean {
  const owner = options.owner ?? DEFAULT_OWNER;
  return (
    desired.some((d) => d.tiles.some((t) => t.alerts.length > 0)) ||
    actual.some(
      (d) => ownerTag(d.tags) && ownerOf(d.tags) === owner && d.tags.includes(ALERTS_TAG),
    ) ||
    plan.changes.some((c) => c.action === 'delete' || c.tiles.some((t) => t.kind === 'removed'))
  );
}

/**
 * Pure planner. `alerts` is the service's alert list, or undefined when it was not read
 * (then no alert changes are planned and removals name no alerts).
 */
export function computePlan(
  desired: readonly DesiredDashboard[],
  actual: readonly Dashboard[],
  options: PlanOptions = {},
  alerts?: readonly Alert[],
): Plan {
  const owner = options.owner ?? DEFAULT_OWNER;
  const targets =
    options.targets && options.targets.length > 0 ? new Set(options.targets) : undefined;
  const targetTags = targets ? new Set([...targets].map(identityTag)) : undefined;
  const owned = new Map<string, Dashboard[]>();
  const foreign = new Map<string, Dashboard>();
  const handMade: Dashboard[] = [];
  for (const d of [...actual].sort((a, b) => a.id.localeCompare(b.id))) {
    const tag = ownerTag(d.tags);
    if (!tag) handMade.push(d);
    else if (ownerOf(d.tags) === owner) owned.set(tag, [...(owned.get(tag) ?? []), d]);
    else if (!foreign.has(tag)) foreign.set(tag, d);
  }
  const changes: DashboardChange[] = [];
  const notes: string[] = [];
  const adoptedIds = new Set<string>();
  const claimed = new Set<string>();
  const wanted = [...desired]
    .filter((d) => !targets || targets.has(d.key))
    .sort((a, b) => a.key.localeCompare(b.key));
  if (targets) {
    const known = new Set([...desired.map((d) => d.key), ...(options.declaredElsewhere ?? [])]);
    for (const t of targets)
      if (!known.has(t) && !owned.has(identityTag(t)))
        notes.push(`--target "${t}" matches no dashboard file and no owned dashboard`);
  }

  for (const want of wanted) {
    const tag = identityTag(want.key);
    claimed.add(tag);
    const [mine, ...duplicates] = owned.get(tag) ?? [];
    // Never pruned while the key's file exists: a copy made by hand carries the same tags,
    // and an extra of a concurrent apply is removed by the run that made it (converge.ts).
    for (const dup of duplicates)
      notes.push(
        `dashboard "${dup.name}" (${dup.id}) carries the key "${want.key}" too (kept: ${mine.id}); not deleted while its file exists: delete it by hand if it is a copy`,
      );
    const other = foreign.get(tag);
    if (!mine && other) {
      changes.push(conflictChange(want, other));
      continue;
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
    changes.push(target ? diffChange(want, target, adopted, owner, alerts) : createChange(want));
  }

  const declared = desired.length + (options.declaredUnread ?? 0);
  if (options.prune && declared === 0 && owned.size > 0 && !options.allowDeleteAll)
    throw new EmptySourcePruneError([...owned.values()].flat().length, owner);
  for (const [tag, list] of owned) {
    if (claimed.has(tag) || (targetTags && !targetTags.has(tag))) continue;
    for (const d of list) {
      if (options.prune) changes.push(deleteChange(d, 'no dashboard file declares it', alerts));
      else notes.push(`owned dashboard "${d.name}" (${d.id}) has no file; --prune deletes it`);
    }
  }
  return summarize(changes, notes, owner, alerts !== undefined, options.rateLimit);
}

/** Prune over a source that declares no dashboard: refused before any write. */
export class EmptySourcePruneError extends ValidationError {
  override name = 'EmptySourcePruneError';
  constructor(owned: number, owner: string, what = 'dashboard(s)') {
    super(
      `the files declare no ${what === 'dashboard(s)' ? 'dashboard' : 'object of any kind'}, so --prune would delete all ${owned} ${what} of owner "${owner}"; refused (an emptied folder or bucket looks the same). To delete them all, pass --allow-delete-all (function: CLOUDOPS_DASHBOARDS_ALLOW_DELETE_ALL=true)`,
    );
  }
}

function summarize(
  changes: DashboardChange[],
  notes: string[],
  owner: string,
  alertsRead: boolean,
  rateLimit?: PlanOptions['rateLimit'],
): Plan {
  const counts: Record<DashboardAction, number> = {
    create: 0,
    update: 0,
    delete: 0,
    unchanged: 0,
    conflict: 0,
  };
  const alertCounts = { create: 0, update: 0, delete: 0 };
  for (const c of changes) {
    counts[c.action] += 1;
    for (const a of c.alerts) alertCounts[a.action] += 1;
  }
  const pending =
    counts.create + counts.update + counts.delete > 0 ||
    alertCounts.create + alertCounts.update + alertCounts.delete > 0;
  const cost = planCost({ counts, alertCounts }, rateLimit);
  return { changes, counts, alertCounts, notes, pending, owner, alertsRead, cost };
}

/** The identity a tile's alerts are marked with: its key, else its name. */
export function tileIdentity(t: { key?: string; name: string }): string {
  return t.key ?? t.name;
}

const hasAlerts = (want: DesiredDashboard) => want.tiles.some((t) => t.alerts.length > 0);

/** The desired tiles as the alerts engine plans them, each with the id the write keeps. */
function alertTiles(want: DesiredDashboard, ids: readonly (string | undefined)[]): AlertTile[] {
  return want.tiles.map((t, i) => ({
    identity: tileIdentity(t),
    name: t.name,
    id: ids[i],
    alerts: t.alerts,
  }));
}

function createChange(want: DesiredDashboard): DashboardChange {
  return {
    action: 'create',
    key: want.key,
    name: want.name,
    sourceFile: want.sourceFile,
    fields: {},
    tiles: want.tiles.map((t) => ({ kind: 'added', name: t.name })),
    alerts: newTileAlerts(alertTiles(want, [])),
    alertsDeleted: [],
    desired: want,
    tileIds: want.tiles.map(() => undefined),
  };
}

function conflictChange(want: DesiredDashboard, other: Dashboard): DashboardChange {
  return {
    action: 'conflict',
    key: want.key,
    name: want.name,
    sourceFile: want.sourceFile,
    id: other.id,
    fields: {},
    tiles: [],
    alerts: [],
    alertsDeleted: [],
    reason: `key "${want.key}" is owned by "${ownerOf(other.tags)}" (dashboard "${other.name}", ${other.id}); not taken over`,
  };
}

function deleteChange(d: Dashboard, reason: string, alerts?: readonly Alert[]): DashboardChange {
  const tileNames = new Map(d.tiles.map((t) => [t.id, t.name]));
  return {
    action: 'delete',
    name: d.name,
    id: d.id,
    fields: {},
    tiles: [],
    alerts: [],
    alertsDeleted: (alerts ?? [])
      .filter((a) => dashboardOf(a) === d.id)
      .map((a) => ref(a, tileNames)),
    reason,
    seen: d,
    ...(alerts ? { seenAlerts: alerts.filter((a) => dashboardOf(a) === d.id) } : {}),
  };
}

/** The dashboard an alert watches: `dashboardId` today, `dashboard` in the spec snapshot. */
export function dashboardOf(a: Alert): string | undefined {
  return alertLinks(a).dashboardId;
}

/** The tile an alert watches, under either spelling (`tileId` today, `tile` in older answers). */
export function tileOf(a: Alert): string | undefined {
  return alertLinks(a).tileId;
}

function ref(a: Alert, tileNames: Map<string, string>): AlertRef {
  const tileId = tileOf(a);
  const tileName = tileId ? tileNames.get(tileId) : undefined;
  return {
    id: a.id,
    ...(a.name != null ? { name: a.name } : {}),
    ...(tileName !== undefined ? { tileName } : {}),
  };
}

/**
 * The current tile id for each desired tile (by index). A tile with a `key` is found by the
 * alert marked with that key (its identity survives a rename), then by name; a tile without
 * a key by name. The first actual tile of a name wins; an id is used once.
 *
 * Tiles carry no field of ours on the service, so a keyed tile without alerts has no recorded
 * identity: when its name is not on the service (a rename), it takes the one service tile that
 * no file tile claims and that has the same query and place, else the same query, else the
 * same place on the grid (ambiguous: none, and it is added). Unkeyed
 * tiles never do: without a key a new name is a new tile, as documented.
 */
export function matchTiles(
  want: DesiredDashboard,
  actual: Dashboard,
  alerts: readonly Alert[] = [],
): (string | undefined)[] {
  const byName = new Map<string, string>();
  for (const t of actual.tiles) if (!byName.has(t.name)) byName.set(t.name, t.id);
  const existing = new Set(actual.tiles.map((t) => t.id));
  const byKey = new Map<string, string>();
  for (const a of alerts) {
    const marker = parseMarker(a.message);
    if (marker?.owner.kind !== 'dashboard' || marker.owner.dashboardKey !== want.key) continue;
    const tileId = tileOf(a);
    if (tileId && existing.has(tileId) && !byKey.has(marker.owner.tileName))
      byKey.set(marker.owner.tileName, tileId);
  }
  const used = new Set<string>();
  const ids = want.tiles.map((t) => {
    const id = (t.key !== undefined ? byKey.get(t.key) : undefined) ?? undefined;
    if (id !== undefined && !used.has(id)) {
      used.add(id);
      return id;
    }
    return undefined;
  });
  const named = want.tiles.map((t, i) => {
    if (ids[i] !== undefined) return ids[i];
    const id = byName.get(t.name);
    if (id === undefined || used.has(id)) return undefined;
    used.add(id);
    return id;
  });
  if (!want.tiles.some((t, i) => t.key !== undefined && named[i] === undefined)) return named;
  return renamedKeyedTiles(want, actual, named, used);
}

/** Keyed tiles left unmatched take the one unclaimed tile with the same query, else place. */
function renamedKeyedTiles(
  want: DesiredDashboard,
  actual: Dashboard,
  ids: (string | undefined)[],
  used: Set<string>,
): (string | undefined)[] {
  const same = (t: DesiredTile, tile: Tile, fields: readonly string[]) =>
    !tileChanges(t, tile).some((c) => fields.includes(c.path.split(/[.[]/)[0]));
  const place = ['x', 'y', 'w', 'h'];
  const tiers: readonly (readonly string[])[] = [['series', ...place], ['series'], place];
  return want.tiles.map((t, i) => {
    if (ids[i] !== undefined || t.key === undefined) return ids[i];
    const free = actual.tiles.filter((a) => !used.has(a.id));
    for (const fields of tiers) {
      const candidates = free.filter((a) => same(t, a, fields));
      if (candidates.length === 1) {
        used.add(candidates[0].id);
        return candidates[0].id;
      }
    }
    return undefined;
  });
}

function diffChange(
  want: DesiredDashboard,
  actual: Dashboard,
  adopted: boolean,
  owner: string,
  alerts?: readonly Alert[],
): DashboardChange {
  const fields: DashboardChange['fields'] = {};
  if (want.name !== actual.name) fields.name = { from: actual.name, to: want.name };
  const haveTags = normalizeTags(actual.tags);
  // The alerts tag only decides whether plan reads alerts: a missing one alone is no change.
  const declares = hasAlerts(want);
  const wantTags = withMarker(want.tags, want.key, owner, declares);
  const added = wantTags.filter((t) => !haveTags.includes(t));
  const removed = haveTags.filter((t) => !wantTags.includes(t));

  const onDashboard = (alerts ?? []).filter((a) => dashboardOf(a) === actual.id);
  const tileIds = matchTiles(want, actual, onDashboard);
  const byId = new Map(actual.tiles.map((t) => [t.id, t]));
  const tileNames = new Map(actual.tiles.map((t) => [t.id, t.name]));
  const tiles: TileChange[] = [];
  want.tiles.forEach((t, i) => {
    const id = tileIds[i];
    if (id === undefined) {
      tiles.push({ kind: 'added', name: t.name });
      return;
    }
    const current = byId.get(id)!;
    // Compared in one vocabulary, whichever form (series or config) each side is in.
    const leafs = tileChanges(t, current);
    const top = [...new Set(leafs.map((c) => c.path.split(/[.[]/)[0]))];
    if (current.name !== t.name) {
      tiles.push({
        kind: 'renamed',
        name: t.name,
        from: current.name,
        id,
        fields: ['name', ...top],
        changes: [{ path: 'name', from: current.name, to: t.name }, ...leafs],
      });
      return;
    }
    if (leafs.length === 0) return;
    const moved = top.every((f) => f === 'x' || f === 'y');
    tiles.push({
      kind: moved ? 'moved' : 'changed',
      name: t.name,
      id,
      fields: top,
      changes: leafs,
    });
  });
  const keptIds = new Set(tileIds.filter((id): id is string => id !== undefined));
  const addedNames = tiles.filter((t) => t.kind === 'added').map((t) => t.name);
  for (const t of actual.tiles) {
    if (keptIds.has(t.id)) continue;
    const killed = onDashboard.filter((a) => tileOf(a) === t.id).map((a) => ref(a, tileNames));
    const change: TileChange = { kind: 'removed', name: t.name, id: t.id, alerts: killed };
    if (killed.length > 0 && addedNames.length > 0) {
      change.warning =
        `if "${t.name}" was renamed (to ${addedNames.map((n) => `"${n}"`).join(' or ')}), ` +
        `its ${killed.length} alert(s) are deleted all the same: give the tile a \`key\` to keep them`;
    }
    tiles.push(change);
  }
  const alertChanges =
    alerts === undefined
      ? []
      : planTileAlerts({
          holder: { kind: 'dashboard', dashboardKey: want.key },
          tiles: alertTiles(want, tileIds),
          onDashboard,
          tileNames,
          adopt: adopted,
        });
  // Marker tags are cloudops' business: written, but shown only as "ownership marker".
  const user = (t: string) => !isReservedTag(t);
  const userAdded = added.filter(user);
  const userRemoved = removed.filter(user);
  if (userAdded.length + userRemoved.length > 0)
    fields.tags = { added: userAdded, removed: userRemoved };
  // Nor is a missing key tag: dashboards written before it existed get it with their next write.
  const marker =
    added.some((t) => !user(t) && t !== ALERTS_TAG && !isKeyTag(t)) ||
    removed.some((t) => !user(t));
  if (marker) fields.marker = true;
  const filters = filterChanges(want.filters, actual.filters);
  if (filters.length > 0) fields.filters = filters;
  const changed =
    fields.name !== undefined ||
    fields.tags !== undefined ||
    marker ||
    filters.length > 0 ||
    tiles.length > 0;
  return {
    action: changed ? 'update' : 'unchanged',
    key: want.key,
    name: want.name,
    sourceFile: want.sourceFile,
    id: actual.id,
    ...(adopted ? { adopted } : {}),
    fields,
    tiles,
    alerts: alertChanges,
    alertsDeleted: tiles.flatMap((t) => t.alerts ?? []),
    desired: want,
    seen: actual,
    tileIds,
    ...(alerts ? { seenAlerts: onDashboard } : {}),
  };
}

/** The body a create or update sends: existing tiles carry their current id. */
export function writeBody(
  want: DesiredDashboard,
  tileIds: readonly (string | undefined)[] = [],
  owner: string = DEFAULT_OWNER,
): DashboardWrite {
  return {
    name: want.name,
    tags: withMarker(want.tags, want.key, owner, hasAlerts(want)),
    tiles: want.tiles.map((t, i) => tileWrite(t, tileIds[i])),
    ...(want.filters ? { filters: want.filters } : {}),
  };
}
