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

/** The `config` form's displayType values (API-FACTS); the service may add more, so reads stay open. */
export const DISPLAY_TYPES = [
  'line',
  'stacked_bar',
  'table',
  'number',
  'pie',
  'bar',
  'heatmap',
  'search',
  'event_patterns',
  'markdown',
] as const;

/** Dashboard limits of the real service (API-FACTS). */
export const DASHBOARD_LIMITS = {
  nameMax: 1024,
  tilesMax: 500,
  tagsMax: 50,
  tagLengthMax: 32,
  gridColumns: 24,
} as const;

/** `null` and absent read the same (the current service sends both); both come out absent. */
const absentIfNull = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null ? undefined : v), schema.optional());
const optionalString = absentIfNull(z.string());

/**
 * Series as the service returns it (the spec's form; the current service never answers it but
 * the spec snapshot does). Value sets are open (spec 2.6), and every field but `type` may be
 * missing or null; unknown fields pass through.
 */
export const series = z.looseObject({
  type: z.string(),
  dataSource: optionalString,
  sourceId: optionalString,
  aggFn: optionalString,
  field: optionalString,
  where: optionalString,
  whereLanguage: optionalString,
  groupBy: absentIfNull(z.array(z.string())),
});

/**
 * A tile's `config` form (what the current service answers for every tile). Only
 * `displayType` is assumed; everything else is read by the normaliser defensively, so a field
 * of an unexpected shape can never fail a parse.
 */
export const tileConfig = z.looseObject({ displayType: z.string().optional() });

const readTile = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  asRatio: absentIfNull(z.boolean()),
  series: absentIfNull(z.array(series)),
  config: absentIfNull(tileConfig),
});

/** Some config-form answers carry the tile name inside `config`; read it from either place. */
export const tile = z.preprocess((raw) => {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const t = raw as Record<string, unknown>;
  if (typeof t.name === 'string') return raw;
  const config = t.config as Record<string, unknown> | null | undefined;
  const name = config && typeof config === 'object' ? config.name : undefined;
  return { ...t, name: typeof name === 'string' ? name : '' };
}, readTile);
export type Tile = z.infer<typeof readTile>;

export const dashboard = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  tiles: z
    .array(tile)
    .nullish()
    .transform((v) => v ?? []),
  tags: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
});
export type Dashboard = z.infer<typeof dashboard>;

/** A series in a write: the current service also wants `sourceId`, `where`, `whereLanguage`. */
export const seriesWrite = z.looseObject({
  type: z.string().min(1),
  dataSource: z.string().optional(),
  sourceId: z.string().optional(),
  aggFn: z.string().optional(),
  field: z.string().optional(),
  where: z.string().optional(),
  whereLanguage: z.string().optional(),
  groupBy: z.array(z.string()).optional(),
});

/**
 * A tile in a write, in either form (`series` or `config`); `id` present for an existing tile
 * (keeps it and its alerts), absent for a new one.
 */
export const tileWrite = z.looseObject({
  id: z.string().min(1).optional(),
  name: z.string(),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  asRatio: z.boolean().optional(),
  series: z.array(seriesWrite).optional(),
  config: tileConfig.optional(),
});
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

/** A source of the sources list (API-FACTS): `{ id, name, kind, connection, from, ... }`. */
export const dataSource = z.looseObject({
  id: z.string().optional(),
  name: z.string().nullish(),
  kind: z.string().nullish(),
});
export type DataSource = z.infer<typeof dataSource>;

/** A webhook of the webhooks list: `{ id, name, service, url?, ... }`. */
export const webhook = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  service: z.string().nullish(),
});
export type Webhook = z.infer<typeof webhook>;
