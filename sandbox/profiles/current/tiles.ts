/**
 * Tiles as the current service stores and answers them: every tile in the `config` form, whichever
 * form was sent (the router converts series to its internal chart config and back out).
 */
import { QUANTILE_LEVELS } from './schemas';
import type { SelectItemInput, SeriesInput, TileInput } from './schemas';

type TileConfig = Record<string, unknown> & { displayType: string };
export interface StoredTile {
  id: string;
  name: string;
  x: number;
  y: number;
  w: number;
  h: number;
  config: TileConfig;
  containerId?: string;
  tabId?: string;
}

/** Drops undefined values so the JSON holds only what the service would send. */
function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const truthy = <T>(value: T): T | undefined => (value ? value : undefined);
const quantileLevel = (level: unknown) =>
  typeof level === 'number' && (QUANTILE_LEVELS as readonly number[]).includes(level)
    ? level
    : undefined;

type DataSeries = Extract<SeriesInput, { type: 'time' | 'table' | 'number' }>;

function selectFromSeries(s: DataSeries) {
  return compact({
    valueExpression: s.field ?? '',
    alias: truthy(s.alias),
    metricType: truthy(s.metricDataType),
    metricName: truthy(s.metricName),
    aggFn: s.aggFn,
    where: s.where ?? '',
    whereLanguage: s.whereLanguage ?? 'lucene',
    level: quantileLevel(s.level),
  });
}

function selectFromConfig(item: SelectItemInput) {
  return compact({
    valueExpression: item.valueExpression ?? '',
    alias: item.alias,
    metricType: item.metricType,
    metricName: item.metricName,
    aggFn: item.aggFn,
    where: item.where ?? '',
    whereLanguage: item.whereLanguage ?? 'lucene',
    periodAggFn: item.periodAggFn,
    level: quantileLevel(item.level),
  });
}

function configFromSeries(series: SeriesInput[], asRatio: boolean | undefined): TileConfig {
  const first = series[0];
  const numberFormat = series.find((s) => 'numberFormat' in s && s.numberFormat) as
    { numberFormat?: unknown } | undefined;
  switch (first.type) {
    case 'time':
    case 'table': {
      const items = (series as DataSeries[]).map(selectFromSeries);
      const ratio = Boolean(asRatio) && items.length === 2;
      const grouped = truthy(first.groupBy.join(','));
      if (first.type === 'time')
        return compact({
          displayType: first.displayType === 'stacked_bar' ? 'stacked_bar' : 'line',
          sourceId: first.sourceId,
          asRatio: ratio,
          fillNulls: true,
          groupBy: grouped,
          select: items,
          numberFormat: numberFormat?.numberFormat,
        });
      return compact({
        displayType: 'table',
        sourceId: first.sourceId,
        asRatio: ratio,
        groupBy: grouped,
        select: items,
        numberFormat: numberFormat?.numberFormat,
      });
    }
    case 'number':
      return compact({
        displayType: 'number',
        sourceId: first.sourceId,
        select: [selectFromSeries(first)],
        numberFormat: first.numberFormat,
      });
    case 'search':
      return {
        displayType: 'search',
        sourceId: first.sourceId,
        select: first.fields.join(', '),
        where: first.where,
        whereLanguage: first.whereLanguage,
      };
    case 'markdown':
      return { displayType: 'markdown', markdown: first.content };
  }
}

/** A config as sent, normalised the way a write and a read-back through the service leave it. */
function normaliseConfig(config: Record<string, unknown>): TileConfig {
  const c = config as Record<string, unknown> & { displayType: string };
  if (c.configType === 'sql') {
    const timeLike = c.displayType === 'line' || c.displayType === 'stacked_bar';
    return compact({
      ...c,
      ...(timeLike ? { fillNulls: c.fillNulls !== false } : {}),
      // Each variant keeps only its own optional fields (the router's per-variant schemas).
      fitYAxisToData: c.displayType === 'line' ? c.fitYAxisToData : undefined,
      color: c.displayType === 'number' ? c.color : undefined,
      onClick: c.displayType === 'table' ? c.onClick : undefined,
    });
  }
  const items = Array.isArray(c.select) ? (c.select as SelectItemInput[]) : [];
  const ratio = Boolean(c.asRatio) && items.length === 2;
  switch (c.displayType) {
    case 'line':
    case 'stacked_bar':
      return compact({
        displayType: c.displayType,
        sourceId: c.sourceId,
        asRatio: ratio,
        alignDateRangeToGranularity: c.alignDateRangeToGranularity,
        fillNulls: c.fillNulls !== false,
        groupBy: truthy(c.groupBy),
        select: items.map(selectFromConfig),
        compareToPreviousPeriod: c.compareToPreviousPeriod,
        numberFormat: c.numberFormat,
        fitYAxisToData: c.displayType === 'line' ? c.fitYAxisToData : undefined,
      });
    case 'table':
      return compact({
        displayType: 'table',
        sourceId: c.sourceId,
        asRatio: ratio,
        groupBy: truthy(c.groupBy),
        select: items.map(selectFromConfig),
        having: c.having,
        orderBy: truthy(c.orderBy),
        groupByColumnsOnLeft: c.groupByColumnsOnLeft,
        numberFormat: c.numberFormat,
        onClick: c.onClick,
      });
    case 'number':
      return compact({
        displayType: 'number',
        sourceId: c.sourceId,
        select: [selectFromConfig(items[0])],
        numberFormat: c.numberFormat,
        color: c.color,
        colorRules: c.colorRules,
        backgroundChart: c.backgroundChart,
      });
    case 'pie':
    case 'bar':
      return compact({
        displayType: c.displayType,
        sourceId: c.sourceId,
        select: [selectFromConfig(items[0])],
        groupBy: truthy(c.groupBy),
        orderBy: truthy(c.orderBy),
        limit: c.limit,
        numberFormat: c.numberFormat,
      });
    case 'event_patterns':
      return compact({
        displayType: 'event_patterns',
        sourceId: c.sourceId,
        select: c.select,
        where: c.where,
        whereLanguage: c.whereLanguage,
      });
    case 'search':
      return {
        displayType: 'search',
        sourceId: c.sourceId,
        select: c.select ?? '',
        where: c.where ?? '',
        whereLanguage: c.whereLanguage ?? 'lucene',
      };
    case 'markdown':
      return { displayType: 'markdown', markdown: c.markdown ?? '' };
    default:
      return compact({ ...c });
  }
}

export function storedTile(tile: TileInput, id: string): StoredTile {
  const config = tile.series
    ? configFromSeries(tile.series, tile.asRatio)
    : normaliseConfig(tile.config!);
  return compact({
    id,
    x: tile.x,
    y: tile.y,
    w: tile.w,
    h: tile.h,
    name: tile.name,
    config,
    containerId: tile.containerId,
    tabId: tile.tabId,
  });
}

/** The source ids a tile reads, for the "unknown source" check. */
export function sourceIdsOf(tile: TileInput): string[] {
  if (tile.series) return tile.series.flatMap((s) => ('sourceId' in s ? [s.sourceId] : []));
  const sourceId = (tile.config as { sourceId?: unknown } | undefined)?.sourceId;
  return typeof sourceId === 'string' && sourceId ? [sourceId] : [];
}
