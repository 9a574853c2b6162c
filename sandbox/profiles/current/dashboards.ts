/** Dashboards of the current service: strict tile forms, known sources, config-form answers. */
import { badRequest, notFound } from '../../errors';
import { objectId } from '../../ids';
import type { DashboardRow, Store } from '../../store';
import {
  ALERTABLE_DISPLAY_TYPES,
  configSchemaFor,
  dashboardBodySchema,
  tileSchema,
} from './schemas';
import type { DashboardFilterInput, TileInput } from './schemas';
import { sourceIdsOf, storedTile } from './tiles';
import type { StoredTile } from './tiles';
import { failure, issuesOf } from './validate';
import type { Issue } from './validate';
import { deleteAlertRows } from './rows';

interface DashboardInput {
  name: string;
  tiles: TileInput[];
  tags?: string[];
  filters?: DashboardFilterInput[];
  savedQuery?: string | null;
  savedQueryLanguage?: string | null;
  savedFilterValues?: Record<string, unknown>[];
}

type CurrentDashboardRow = Omit<DashboardRow, 'tiles'> & {
  tiles: StoredTile[];
  filters?: unknown[];
  savedQuery?: string | null;
  savedQueryLanguage?: string | null;
  savedFilterValues?: unknown[];
};

/** Every problem of a body, in the service's order: shape, tiles, duplicate ids. */
export function dashboardIssues(body: unknown): { issues: Issue[]; input?: DashboardInput } {
  const parsed = dashboardBodySchema.safeParse(body);
  if (!parsed.success) return { issues: issuesOf(parsed.error) };
  const issues: Issue[] = [];
  const tiles: TileInput[] = [];
  parsed.data.tiles.forEach((raw, i) => {
    const tile = tileSchema.safeParse(raw);
    if (!tile.success) {
      issues.push(...issuesOf(tile.error, ['tiles', i]));
      return;
    }
    const { series, config } = tile.data;
    if ((series === undefined) === (config === undefined)) {
      issues.push({ path: `tiles.${i}`, message: 'a tile needs exactly one of series or config' });
      return;
    }
    if (series && new Set(series.map((s) => s.type)).size > 1)
      issues.push({
        path: `tiles.${i}.series`,
        message: 'all series of one tile must share a type',
      });
    if (config) {
      const schema = configSchemaFor(config);
      if (!schema) {
        issues.push({ path: `tiles.${i}.config.displayType`, message: 'Invalid displayType' });
        return;
      }
      const checked = schema.safeParse(config);
      if (!checked.success) issues.push(...issuesOf(checked.error, ['tiles', i, 'config']));
      else {
        const c = checked.data as { asRatio?: boolean; select?: unknown };
        if (c.asRatio && !(Array.isArray(c.select) && c.select.length === 2))
          issues.push({
            path: `tiles.${i}.config.asRatio`,
            message: 'asRatio needs exactly two select items',
          });
      }
    }
    tiles.push(tile.data);
  });
  const seen = new Set<string>();
  parsed.data.tiles.forEach((raw, i) => {
    const id = (raw as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    if (seen.has(id))
      issues.push({
        path: `tiles.${i}.id`,
        message: `Duplicate tile ID: ${id}. Omit the ID to generate a unique one.`,
      });
    seen.add(id);
  });
  if (issues.length > 0) return { issues };
  return { issues, input: { ...parsed.data, tiles } };
}

/** The source ids a dashboard names: its tiles' and its filters' (`appliesToSourceIds` too). */
function namedSourceIds(input: DashboardInput): string[] {
  const filters = input.filters ?? [];
  return [
    ...input.tiles.flatMap(sourceIdsOf),
    ...filters.flatMap((f) => [f.sourceId, ...(f.appliesToSourceIds ?? [])]),
  ];
}

/** The 400 a create would answer for sources the service does not have (the message has no path). */
function unknownSources(
  store: Store,
  serviceId: string,
  input: DashboardInput,
): string | undefined {
  const known = new Set(
    store.state.sources.filter((s) => s.serviceId === serviceId).map((s) => s.id),
  );
  const missing = [...new Set(namedSourceIds(input))].filter((id) => !known.has(id));
  return missing.length > 0
    ? `Could not find the following source IDs: ${missing.join(', ')}`
    : undefined;
}

function validInput(store: Store, serviceId: string, body: unknown): DashboardInput {
  const { issues, input } = dashboardIssues(body);
  if (!input) throw failure('Body', issues);
  const unknown = unknownSources(store, serviceId, input);
  if (unknown) throw badRequest(unknown);
  return input;
}

/**
 * The dry run: always 200 `{ valid, errors, normalized }`, refusing what a create would, with the
 * same path and message (`""` for the top-level source check); nothing is written.
 */
export function validateDashboard(store: Store, serviceId: string, body: unknown) {
  const { issues, input } = dashboardIssues(body);
  const unknown = input && unknownSources(store, serviceId, input);
  const errors = unknown ? [{ path: '', message: unknown }] : issues;
  return {
    valid: errors.length === 0,
    errors,
    normalized:
      input && errors.length === 0
        ? { ...input, tiles: input.tiles.map((t) => storedTile(t, t.id ?? '')) }
        : null,
  };
}

export function dashboardView(row: DashboardRow): Record<string, unknown> {
  const r = row as unknown as CurrentDashboardRow;
  return structuredClone({
    id: r.id,
    name: r.name,
    tiles: r.tiles,
    tags: r.tags ?? [],
    filters: r.filters ?? [],
    savedQuery: r.savedQuery ?? null,
    savedQueryLanguage: r.savedQueryLanguage ?? null,
    savedFilterValues: r.savedFilterValues ?? [],
  });
}

export function listDashboards(store: Store, serviceId: string): DashboardRow[] {
  return store.state.dashboards.filter((d) => d.serviceId === serviceId);
}

export function findDashboard(store: Store, serviceId: string, id: string): DashboardRow {
  const row = store.state.dashboards.find((d) => d.id === id && d.serviceId === serviceId);
  if (!row) throw notFound('Dashboard not found');
  return row;
}

/** A tile keeps its id only when it names one that exists on this dashboard. */
function tilesFor(input: DashboardInput, existing: ReadonlySet<string>, now: number): StoredTile[] {
  return input.tiles.map((tile) =>
    storedTile(tile, tile.id !== undefined && existing.has(tile.id) ? tile.id : objectId(now)),
  );
}

function apply(row: CurrentDashboardRow, input: DashboardInput, tiles: StoredTile[]): void {
  row.name = input.name;
  row.tiles = tiles;
  if (input.tags !== undefined) row.tags = input.tags;
  if (input.filters !== undefined) row.filters = input.filters;
  if (input.savedQuery !== undefined) row.savedQuery = input.savedQuery;
  if (input.savedQueryLanguage !== undefined) row.savedQueryLanguage = input.savedQueryLanguage;
  if (input.savedFilterValues !== undefined) row.savedFilterValues = input.savedFilterValues;
}

export function createDashboard(
  store: Store,
  serviceId: string,
  body: unknown,
  now: number,
): DashboardRow {
  const input = validInput(store, serviceId, body);
  const at = new Date(now).toISOString();
  const row = {
    id: objectId(now),
    name: input.name,
    tiles: [],
    tags: [],
    serviceId,
    createdAt: at,
    updatedAt: at,
  } as CurrentDashboardRow;
  apply(row, input, tilesFor(input, new Set(), now));
  store.state.dashboards.push(row as unknown as DashboardRow);
  store.changed();
  return row as unknown as DashboardRow;
}

const alertable = (tile: StoredTile) =>
  (ALERTABLE_DISPLAY_TYPES as readonly string[]).includes(tile.config.displayType);

/**
 * PUT replaces name and tiles; afterwards the alerts of removed tiles and of every tile whose type
 * cannot hold alerts are deleted, changed or not.
 */
export function updateDashboard(
  store: Store,
  serviceId: string,
  id: string,
  body: unknown,
  now: number,
): DashboardRow {
  const row = findDashboard(store, serviceId, id) as unknown as CurrentDashboardRow;
  const input = validInput(store, serviceId, body);
  apply(row, input, tilesFor(input, new Set(row.tiles.map((t) => t.id)), now));
  const keep = new Set(row.tiles.filter(alertable).map((t) => t.id));
  deleteAlertRows(
    store.state,
    (a) => a.dashboardId === row.id && (a.tileId === undefined || !keep.has(a.tileId)),
  );
  row.updatedAt = new Date(now).toISOString();
  store.changed();
  return row as unknown as DashboardRow;
}

/** Deleting a dashboard deletes the alerts that watch its tiles. */
export function deleteDashboard(store: Store, serviceId: string, id: string): void {
  const row = findDashboard(store, serviceId, id);
  store.state.dashboards = store.state.dashboards.filter((d) => d !== row);
  deleteAlertRows(store.state, (a) => a.dashboardId === row.id);
  store.changed();
}

/** The tile an alert may watch: it exists and is a line, stacked_bar or number tile. */
export function alertableTile(
  store: Store,
  serviceId: string,
  dashboardId: string,
  tileId: string,
): void {
  const dashboard = store.state.dashboards.find(
    (d) => d.id === dashboardId && d.serviceId === serviceId,
  ) as unknown as CurrentDashboardRow | undefined;
  if (!dashboard)
    throw badRequest(`Body validation failed: dashboardId: dashboard ${dashboardId} not found`);
  const tile = dashboard.tiles.find((t) => t.id === tileId);
  if (!tile)
    throw badRequest(
      `Body validation failed: tileId: tile ${tileId} not found on dashboard ${dashboardId}`,
    );
  if (!alertable(tile))
    throw badRequest(
      `Body validation failed: tileId: alerts are supported on line, stacked_bar and number tiles only, not ${tile.config.displayType}`,
    );
}
