import * as z from 'zod';

export const AGG_FNS = [
  'avg',
  'count',
  'count_distinct',
  'last_value',
  'max',
  'min',
  'quantile',
  'sum',
  'any',
  'none',
] as const;
export const SERIES_TYPES = ['time', 'table', 'number', 'search', 'markdown'] as const;

/** Dashboard limits of the real service (API-FACTS). */
export const DASHBOARD_LIMITS = {
  nameMax: 1024,
  tilesMax: 500,
  tagsMax: 50,
  tagLengthMax: 32,
  gridColumns: 24,
} as const;

/** Series as the service returns it: value sets are open (spec 2.6), so strings. */
export const series = z.looseObject({
  type: z.string(),
  dataSource: z.string().optional(),
  aggFn: z.string().optional(),
  where: z.string().optional(),
  groupBy: z.array(z.string()).optional(),
});
export type Series = z.infer<typeof series>;

export const tile = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  asRatio: z.boolean().optional(),
  series: z.array(series).optional(),
});
export type Tile = z.infer<typeof tile>;

export const dashboard = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  tiles: z.array(tile).default([]),
  tags: z.array(z.string()).default([]),
});
export type Dashboard = z.infer<typeof dashboard>;

/** A tile in a write: `id` present for an existing tile (keeps it), absent for a new one. */
export const tileWrite = tile.extend({ id: z.string().min(1).optional() });
export type TileWrite = z.input<typeof tileWrite>;

/** Create/update dashboard body (spec 4.7: no field is marked required). */
export const dashboardWrite = z.object({
  name: z.string().min(1).max(DASHBOARD_LIMITS.nameMax).optional(),
  tiles: z.array(tileWrite).max(DASHBOARD_LIMITS.tilesMax).optional(),
  tags: z
    .array(z.string().max(DASHBOARD_LIMITS.tagLengthMax))
    .max(DASHBOARD_LIMITS.tagsMax)
    .optional(),
});
export type DashboardWrite = z.input<typeof dashboardWrite>;

/** Data-source record fields are not shown by the spec: only an id is assumed. */
export const dataSource = z.looseObject({ id: z.string().optional(), name: z.string().optional() });
export type DataSource = z.infer<typeof dataSource>;
