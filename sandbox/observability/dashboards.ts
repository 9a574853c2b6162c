import type { Dashboard, Tile } from '../../lib/schemas';
import { dashboardWrite } from '../profiles/spec-schemas';
import type { TileWrite } from '../profiles/spec-schemas';
import { badRequest, notFound, validateBody } from '../errors';
import { objectId } from '../ids';
import type { DashboardRow, Store } from '../store';

const GRID_COLUMNS = 24;

/** The dashboard as both APIs show it. */
export function dashboardView(
  row: DashboardRow,
): Dashboard & { createdAt: string; updatedAt: string } {
  const { serviceId: _serviceId, ...view } = row;
  return structuredClone(view);
}

export function listDashboards(store: Store, serviceId: string): DashboardRow[] {
  return store.state.dashboards.filter((d) => d.serviceId === serviceId);
}

export function findDashboard(store: Store, serviceId: string, id: string): DashboardRow {
  const row = store.state.dashboards.find((d) => d.id === id && d.serviceId === serviceId);
  if (!row) throw notFound('Dashboard not found');
  return row;
}

/** Grid limits of the real service, checked after the schema (which leaves them open). */
function checkTiles(tiles: readonly TileWrite[]): void {
  const problems: string[] = [];
  tiles.forEach((tile, i) => {
    if (!(tile.x >= 0 && tile.x <= GRID_COLUMNS - 1))
      problems.push(`tiles[${i}].x: must be between 0 and 23`);
    if (!(tile.w >= 1 && tile.w <= GRID_COLUMNS))
      problems.push(`tiles[${i}].w: must be between 1 and 24`);
    if (!(tile.y >= 0)) problems.push(`tiles[${i}].y: must be >= 0`);
    if (!(tile.h >= 1)) problems.push(`tiles[${i}].h: must be >= 1`);
    const types = new Set((tile.series ?? []).map((s) => s.type));
    if (types.size > 1)
      problems.push(`tiles[${i}].series: all series of one tile must share a type`);
  });
  if (problems.length > 0) throw badRequest(`Body validation failed: ${problems.join('; ')}`);
}

/** A tile keeps its id only when it names one that exists on this dashboard; otherwise a fresh id. */
function assignTileIds(
  tiles: readonly TileWrite[],
  existing: ReadonlySet<string>,
  now: number,
): Tile[] {
  const used = new Set<string>();
  return tiles.map((tile) => {
    const keep = tile.id !== undefined && existing.has(tile.id) && !used.has(tile.id);
    const id = keep ? tile.id! : objectId(now);
    used.add(id);
    return { ...structuredClone(tile), id };
  });
}

export function createDashboard(
  store: Store,
  serviceId: string,
  body: unknown,
  now: number,
): DashboardRow {
  const input = validateBody(dashboardWrite, body);
  if (input.name === undefined) throw badRequest('Body validation failed: name: required');
  const tiles = input.tiles ?? [];
  checkTiles(tiles);
  const at = new Date(now).toISOString();
  const row: DashboardRow = {
    id: objectId(now),
    name: input.name,
    tiles: assignTileIds(tiles, new Set(), now),
    tags: input.tags ?? [],
    serviceId,
    createdAt: at,
    updatedAt: at,
  };
  store.state.dashboards.push(row);
  store.changed();
  return row;
}

/** PUT replaces the tile list (when given); alerts on tiles that are gone afterwards are deleted. */
export function updateDashboard(
  store: Store,
  serviceId: string,
  id: string,
  body: unknown,
  now: number,
): DashboardRow {
  const row = findDashboard(store, serviceId, id);
  const input = validateBody(dashboardWrite, body);
  if (input.tiles) checkTiles(input.tiles);
  if (input.name !== undefined) row.name = input.name;
  if (input.tags !== undefined) row.tags = input.tags;
  if (input.tiles !== undefined) {
    row.tiles = assignTileIds(input.tiles, new Set(row.tiles.map((t) => t.id)), now);
    const kept = new Set(row.tiles.map((t) => t.id));
    store.state.alerts = store.state.alerts.filter(
      (a) => a.dashboard !== row.id || !a.tileId || kept.has(a.tileId),
    );
  }
  row.updatedAt = new Date(now).toISOString();
  store.changed();
  return row;
}

/** Deleting a dashboard deletes the alerts that watch its tiles. */
export function deleteDashboard(store: Store, serviceId: string, id: string): void {
  const row = findDashboard(store, serviceId, id);
  store.state.dashboards = store.state.dashboards.filter((d) => d !== row);
  store.state.alerts = store.state.alerts.filter((a) => a.dashboard !== row.id);
  store.changed();
}
