/**
 * One comparable form for desired (files) and observed (service) tiles, whichever form each is
 * in: the spec's `series` form (what files usually say and what the spec snapshot answers) and
 * the `config` form (what the current service answers for every tile, API-FACTS). Both become a
 * `ComparableQuery` in the config vocabulary, so an unchanged dashboard plans as unchanged
 * against either service.
 *
 * Only what the service treats as equal is normalised: key order, absent vs empty `where`, a
 * missing asRatio (false), a groupBy list vs the config's comma-joined string, tag order and
 * duplicates. groupBy order is kept: it changes the result. Tiles are matched by name (or key),
 * never by index. Fields the config form cannot carry (the spec's `dataSource`, once a series
 * has a `sourceId`) and fields the file cannot express (extras the service adds) are not
 * compared, so whole comparable tiles can be diffed directly.
 */
import { diffValues, stableStringify, type FieldChange } from '../diff';
import type { Dashboard, Tile, TileWrite } from '../schemas';
import type { DesiredTile } from './types';

export interface ComparableSelect {
  aggFn?: string;
  valueExpression?: string;
  alias?: string;
  level?: number;
  where?: string;
  whereLanguage?: string;
  metricName?: string;
  metricType?: string;
}

/** A tile's query in the config vocabulary; absent fields are left out (never `undefined`). */
export interface ComparableQuery {
  /** '' for a tile with no query at all. */
  displayType: string;
  sourceId?: string;
  /** The spec's data source: kept only for a series without sourceId (the spec's service). */
  dataSource?: string;
  /** Aggregations, or the column list of a search tile. */
  select?: ComparableSelect[] | string[];
  groupBy?: string[];
  where?: string;
  whereLanguage?: string;
  markdown?: string;
  numberFormat?: unknown;
  configType?: string;
  connectionId?: string;
  sqlTemplate?: string;
  /** The August 2026 optional fields; `fitYAxisToData: false` is the same as absent. */
  fitYAxisToData?: boolean;
  color?: string;
  colorRules?: unknown;
  backgroundChart?: unknown;
  onClick?: unknown;
  limit?: number;
  orderBy?: string;
}

export interface NormalTile {
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  asRatio: boolean;
  /** The query, whichever form it came in (field name kept from the series-only days). */
  series: ComparableQuery;
}

export type QueryForm = 'series' | 'config' | 'none';

/** `series` names the tile's query in plans, whatever form it is written in. */
const TILE_FIELDS = ['x', 'y', 'w', 'h', 'asRatio', 'series'] as const;
export type TileField = (typeof TILE_FIELDS)[number];

type Loose = Record<string, unknown>;
type AnyTile = Tile | TileWrite | DesiredTile;

const isRecord = (v: unknown): v is Loose =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** Empty and absent filters mean the same (the current service requires `where`, may be ''). */
const nonEmpty = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : undefined;
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/** Drops undefined fields so that absent and undefined compare equal. */
function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

/** groupBy: a list (series form) or one comma-joined expression (config form). */
function groupByList(v: unknown): string[] | undefined {
  const parts = Array.isArray(v)
    ? v.filter((s): s is string => typeof s === 'string').flatMap((s) => s.split(','))
    : typeof v === 'string'
      ? v.split(',')
      : [];
  const list = parts.map((s) => s.trim()).filter((s) => s !== '');
  return list.length > 0 ? list : undefined;
}

function columnList(v: unknown): string[] | undefined {
  return groupByList(v);
}

/**
 * What the service assumes for a filter without a language. Not compared: a table series'
 * `sortOrder`, which the config form does not keep.
 */
const DEFAULT_LANGUAGE = 'lucene';

const SERIES_DISPLAY: Record<string, string> = {
  table: 'table',
  number: 'number',
  search: 'search',
  markdown: 'markdown',
};

/** The series form, read the way the service converts it into its config form. */
function seriesToComparable(list: readonly unknown[]): ComparableQuery {
  const series = list.filter(isRecord);
  const first = series[0];
  if (!first) return { displayType: '' };
  const type = str(first.type) ?? '';
  if (type === 'markdown')
    return compact({ displayType: 'markdown', markdown: str(first.content) });
  const base: ComparableQuery = {
    displayType:
      type === 'time' ? (str(first.displayType) ?? 'line') : (SERIES_DISPLAY[type] ?? type),
    sourceId: str(first.sourceId),
    // The config form has no dataSource: with a sourceId it is not what the service keeps.
    dataSource: str(first.sourceId) === undefined ? str(first.dataSource) : undefined,
  };
  if (type === 'search') {
    return compact({
      ...base,
      select: columnList(first.fields),
      where: nonEmpty(first.where),
      whereLanguage: str(first.whereLanguage) ?? DEFAULT_LANGUAGE,
    });
  }
  // A number tile shows one value: the service keeps only its first series.
  const shown = type === 'number' ? series.slice(0, 1) : series;
  return compact({
    ...base,
    select: shown.map((s) =>
      compact<ComparableSelect>({
        aggFn: str(s.aggFn),
        valueExpression: nonEmpty(s.field),
        alias: nonEmpty(s.alias),
        level: num(s.level),
        where: nonEmpty(s.where),
        whereLanguage: str(s.whereLanguage) ?? DEFAULT_LANGUAGE,
        metricName: nonEmpty(s.metricName),
        metricType: nonEmpty(s.metricDataType),
      }),
    ),
    groupBy: type === 'number' ? undefined : groupByList(first.groupBy),
    numberFormat: isRecord(first.numberFormat) ? first.numberFormat : undefined,
  });
}

/** The config form (read-back of the current service, or a file tile written in config form). */
function configToComparable(config: Loose): ComparableQuery {
  const displayType = str(config.displayType) ?? '';
  if (displayType === 'markdown')
    return compact({ displayType, markdown: str(config.markdown) ?? str(config.content) });
  const select = config.select;
  return compact({
    displayType,
    sourceId: str(config.sourceId) ?? str(config.source),
    select: Array.isArray(select)
      ? select.filter(isRecord).map((s) =>
          compact<ComparableSelect>({
            aggFn: str(s.aggFn),
            valueExpression: nonEmpty(s.valueExpression),
            alias: nonEmpty(s.alias),
            level: num(s.level),
            where: nonEmpty(s.where) ?? nonEmpty(s.aggCondition),
            whereLanguage: str(s.whereLanguage) ?? str(s.aggConditionLanguage) ?? DEFAULT_LANGUAGE,
            metricName: nonEmpty(s.metricName),
            metricType: nonEmpty(s.metricType),
          }),
        )
      : columnList(select),
    groupBy: groupByList(config.groupBy),
    where: nonEmpty(config.where),
    whereLanguage:
      displayType === 'search' ? (str(config.whereLanguage) ?? DEFAULT_LANGUAGE) : undefined,
    numberFormat: isRecord(config.numberFormat) ? config.numberFormat : undefined,
    configType: str(config.configType),
    connectionId: str(config.connectionId),
    sqlTemplate: str(config.sqlTemplate),
    fitYAxisToData: config.fitYAxisToData === true ? true : undefined,
    color: str(config.color),
    colorRules: Array.isArray(config.colorRules) ? config.colorRules : undefined,
    backgroundChart: isRecord(config.backgroundChart) ? config.backgroundChart : undefined,
    onClick: isRecord(config.onClick) ? config.onClick : undefined,
    limit: num(config.limit),
    orderBy: nonEmpty(config.orderBy),
  });
}

/** A tile's query: `config` when the tile has one and no series, else its series. */
export function comparableQuery(t: AnyTile): { query: ComparableQuery; form: QueryForm } {
  const series = (t as { series?: unknown }).series;
  const config = (t as { config?: unknown }).config;
  if (Array.isArray(series) && series.length > 0)
    return { query: seriesToComparable(series), form: 'series' };
  if (isRecord(config)) return { query: configToComparable(config), form: 'config' };
  return { query: { displayType: '' }, form: 'none' };
}

const RATIO_TYPES = new Set(['line', 'stacked_bar', 'table']);

export function normalizeTile(t: AnyTile): NormalTile {
  const { query } = comparableQuery(t);
  const config = (t as { config?: unknown }).config;
  const configRatio = isRecord(config) && typeof config.asRatio === 'boolean' && config.asRatio;
  return {
    name: t.name,
    x: t.x,
    y: t.y,
    w: t.w,
    h: t.h,
    // Only ratio-capable kinds carry it (the service's config form has no asRatio elsewhere).
    // The service keeps asRatio only where it means something: two aggregations to divide.
    asRatio:
      RATIO_TYPES.has(query.displayType) &&
      Array.isArray(query.select) &&
      query.select.length === 2 &&
      ((t.asRatio ?? false) || configRatio),
    series: query,
  };
}

export function normalizeTags(tags: readonly string[]): string[] {
  return [...new Set(tags)].sort();
}

/** Fields of `actual` that differ from `desired` (empty when equal). */
export function tileDiff(desired: NormalTile, actual: NormalTile): TileField[] {
  return TILE_FIELDS.filter((f) => stableStringify(desired[f]) !== stableStringify(actual[f]));
}

/**
 * Every differing leaf between a desired and an observed tile (in either form), for plans that
 * show old → new values. Empty exactly when `tileDiff` is empty.
 */
export function tileChanges(desired: AnyTile, observed: AnyTile): FieldChange[] {
  const actual = normalizeTile(observed);
  const want = normalizeTile(desired);
  return TILE_FIELDS.flatMap((f) => diffValues(actual[f], want[f], f));
}

/**
 * What a write sends for a desired tile; `id` keeps an existing tile (and its alerts). The
 * current service wants `where` on every data series and `groupBy` on time and table series,
 * so absent ones are sent empty.
 */
export function tileWrite(t: DesiredTile, id?: string): TileWrite {
  const base = {
    ...(id !== undefined ? { id } : {}),
    name: t.name,
    x: t.x,
    y: t.y,
    w: t.w,
    h: t.h,
  };
  if (t.series.length > 0) {
    const series = t.series.map((s) => {
      const { source: _name, ...rest } = s;
      if (s.type === 'markdown') return rest;
      const grouped = s.type === 'time' || s.type === 'table';
      return {
        ...rest,
        where: rest.where ?? '',
        ...(grouped ? { groupBy: rest.groupBy ?? [] } : {}),
      };
    });
    return { ...base, asRatio: t.asRatio, series };
  }
  if (t.config) {
    const { source: _name, ...config } = t.config;
    return { ...base, config };
  }
  return { ...base, asRatio: t.asRatio };
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
    // Only when there are some: a dashboard without filters keeps the fingerprint it had.
    ...(d.filters?.length ? { filters: d.filters.map(comparableFilter) } : {}),
  });
}

/** A filter as compared: what a file can say, `appliesToSourceIds` as a set (empty = absent). */
function comparableFilter(f: Record<string, unknown>): Record<string, unknown> {
  const applies = Array.isArray(f.appliesToSourceIds)
    ? [...(f.appliesToSourceIds as string[])].sort()
    : [];
  return compact({
    name: f.name,
    expression: f.expression,
    type: f.type ?? undefined,
    sourceId: f.sourceId,
    appliesToSourceIds: applies.length > 0 ? applies : undefined,
  });
}

/**
 * Dashboard filters, old -> new; none when the file leaves them out (the service keeps its own,
 * so they are neither sent nor drift).
 */
export function filterChanges(
  want: readonly Record<string, unknown>[] | undefined,
  have: readonly Record<string, unknown>[] | undefined,
): FieldChange[] {
  if (want === undefined) return [];
  // A type the file leaves out is the service's default, whatever it answers.
  const seen = (have ?? []).map((f, i) =>
    want[i] !== undefined && want[i].type === undefined ? { ...f, type: undefined } : f,
  );
  return diffValues(
    { filters: seen.map(comparableFilter) },
    { filters: want.map(comparableFilter) },
  );
}
