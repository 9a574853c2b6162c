/**
 * One comparable form for desired (files) and actual (service) tiles. Only what the service
 * treats as equal is normalised: key order, a missing asRatio (false), a missing series list
 * (none), tag order and duplicates. Tile order in the list carries no meaning (position is
 * x/y) so tiles are matched by name, never by index. groupBy order is kept: it changes the result.
 * Fields the file format cannot express (extra series fields the service may add) are not compared.
 */
import type { Dashboard, Series, Tile, TileWrite } from '../schemas';
import type { FileSeries } from './file-schema';
import type { DesiredTile } from './types';

// A type alias (not an interface) so it is assignable to the loose series of a TileWrite.
export type NormalSeries = {
  type: string;
  dataSource?: string;
  aggFn?: string;
  where?: string;
  groupBy?: string[];
};

export interface NormalTile {
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  asRatio: boolean;
  series: NormalSeries[];
}

export const TILE_FIELDS = ['x', 'y', 'w', 'h', 'asRatio', 'series'] as const;
export type TileField = (typeof TILE_FIELDS)[number];

export function normalizeSeries(s: Series | FileSeries): NormalSeries {
  const out: NormalSeries = { type: s.type };
  if (s.dataSource !== undefined) out.dataSource = s.dataSource;
  if (s.aggFn !== undefined) out.aggFn = s.aggFn;
  if (s.where !== undefined) out.where = s.where;
  if (s.groupBy !== undefined) out.groupBy = [...s.groupBy];
  return out;
}

export function normalizeTile(t: Tile | TileWrite | DesiredTile): NormalTile {
  return {
    name: t.name,
    x: t.x,
    y: t.y,
    w: t.w,
    h: t.h,
    asRatio: t.asRatio ?? false,
    series: (t.series ?? []).map(normalizeSeries),
  };
}

export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}

/** Fields of `actual` that differ from `desired` (empty when equal). */
export function tileDiff(desired: NormalTile, actual: NormalTile): TileField[] {
  return TILE_FIELDS.filter((f) => stableStringify(desired[f]) !== stableStringify(actual[f]));
}

/** What a write sends for a desired tile; `id` keeps an existing tile (and its alerts). */
export function tileWrite(t: DesiredTile, id?: string): TileWrite {
  const { name, x, y, w, h, asRatio, series } = normalizeTile(t);
  return { ...(id !== undefined ? { id } : {}), name, x, y, w, h, asRatio, series };
}

/**
 * A dashboard's comparable state, tile ids included: equal fingerprints before and after a
 * re-read mean nobody edited the dashboard in between (the API has no version or ETag).
 */
export function fingerprint(d: Dashboard): string {
  return stableStringify({
    name: d.name,
    tags: normalizeTags(d.tags),
    tiles: d.tiles.map((t) => ({ id: t.id, ...normalizeTile(t) })),
  });
}

/** JSON with object keys sorted, so key order never reads as a difference. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
