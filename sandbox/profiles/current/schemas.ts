/**
 * Request bodies as the current service validates them (API-FACTS, "The service as it stands
 * today"). Written here, not taken from lib/schemas, so the sandbox does not agree with the
 * client merely because both read the same file. Unknown fields are dropped, as zod objects do.
 */
import * as z from 'zod';
import { isObjectId } from '../../ids';

const AGG_FNS = [
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
const THRESHOLD_TYPES = [
  'above',
  'below',
  'above_exclusive',
  'below_or_equal',
  'equal',
  'not_equal',
  'between',
  'not_between',
] as const;
const ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
const ALERT_SOURCES = ['tile', 'saved_search'] as const;
/** Tiles that can hold an alert. */
export const ALERTABLE_DISPLAY_TYPES = ['line', 'stacked_bar', 'number'] as const;
export const QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;

export const objectIdString = z.string().refine(isObjectId, 'Invalid ObjectId');
const whereLanguage = z.enum(['sql', 'lucene']);
const aggFn = z.enum(AGG_FNS);
const numberFormat = z.looseObject({});

// --- the deprecated `series` form: every data series names its source and filter language ---
const dataSeriesFields = {
  sourceId: objectIdString,
  aggFn,
  where: z.string(),
  whereLanguage,
  field: z.string().optional(),
  alias: z.string().optional(),
  level: z.number().min(0).max(1).optional(),
  metricName: z.string().optional(),
  metricDataType: z.string().optional(),
  numberFormat: numberFormat.optional(),
};
const groupBy = z.array(z.string()).max(10);

const seriesSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('time'),
    ...dataSeriesFields,
    groupBy,
    displayType: z.enum(['line', 'stacked_bar']).optional(),
  }),
  z.object({
    type: z.literal('table'),
    ...dataSeriesFields,
    groupBy,
    sortOrder: z.enum(['asc', 'desc']).optional(),
  }),
  z.object({ type: z.literal('number'), ...dataSeriesFields }),
  z.object({
    type: z.literal('search'),
    sourceId: objectIdString,
    where: z.string(),
    whereLanguage,
    fields: z.array(z.string()),
  }),
  z.object({ type: z.literal('markdown'), content: z.string() }),
]);
export type SeriesInput = z.output<typeof seriesSchema>;

// --- the `config` form, chosen by displayType ---
const selectItemSchema = z
  .object({
    aggFn,
    valueExpression: z.string().optional(),
    alias: z.string().optional(),
    level: z
      .number()
      .refine((v) => (QUANTILE_LEVELS as readonly number[]).includes(v), {
        message: 'must be one of 0.5, 0.9, 0.95, 0.99',
      })
      .optional(),
    where: z.string().optional(),
    whereLanguage: whereLanguage.optional(),
    metricName: z.string().optional(),
    metricType: z.string().optional(),
    periodAggFn: z.literal('delta').optional(),
  })
  .superRefine((item, ctx) => {
    if (item.aggFn === 'count' && item.valueExpression)
      ctx.addIssue({
        code: 'custom',
        path: ['valueExpression'],
        message: 'not allowed with aggFn count',
      });
    if (item.aggFn !== 'count' && !item.valueExpression)
      ctx.addIssue({
        code: 'custom',
        path: ['valueExpression'],
        message: `required with aggFn ${item.aggFn}`,
      });
    if (item.level !== undefined && item.aggFn !== 'quantile')
      ctx.addIssue({
        code: 'custom',
        path: ['level'],
        message: 'only allowed with aggFn quantile',
      });
  });
export type SelectItemInput = z.output<typeof selectItemSchema>;

const select = z.array(selectItemSchema).min(1).max(20);
const oneSelect = z.array(selectItemSchema).length(1);

// --- the August 2026 optional fields ---
const paletteColor = z.string().min(1);
const ruleLabel = z.string().max(40).optional();
/** A number tile's colour rule (the operators its editor offers); the last match wins. */
const colorRule = z.discriminatedUnion('operator', [
  z.object({
    operator: z.enum(['gt', 'gte', 'lt', 'lte']),
    value: z.number(),
    color: paletteColor,
    label: ruleLabel,
  }),
  z.object({
    operator: z.literal('between'),
    value: z.tuple([z.number(), z.number()]),
    color: paletteColor,
    label: ruleLabel,
  }),
  z.object({
    operator: z.enum(['eq', 'neq']),
    value: z.union([z.number(), z.string().max(200)]),
    color: paletteColor,
    label: ruleLabel,
  }),
]);
const numberColors = {
  color: paletteColor.optional(),
  colorRules: z.array(colorRule).max(10).optional(),
  backgroundChart: z
    .object({ type: z.enum(['line', 'area']), color: paletteColor.optional() })
    .optional(),
};
/** Only the external link is in the contract. */
const onClick = z.object({ type: z.literal('external'), urlTemplate: z.string().min(1) });
const categorical = {
  groupBy: z.string().optional(),
  orderBy: z.string().optional(),
  limit: z.number().int().positive().optional(),
  numberFormat: numberFormat.optional(),
};
const timeExtras = {
  fillNulls: z.boolean().optional(),
  alignDateRangeToGranularity: z.boolean().optional(),
  compareToPreviousPeriod: z.boolean().optional(),
};

const builderConfigs = {
  line: z.object({
    displayType: z.literal('line'),
    sourceId: objectIdString,
    select,
    groupBy: z.string().optional(),
    asRatio: z.boolean().optional(),
    numberFormat: numberFormat.optional(),
    fitYAxisToData: z.boolean().optional(),
    ...timeExtras,
  }),
  stacked_bar: z.object({
    displayType: z.literal('stacked_bar'),
    sourceId: objectIdString,
    select,
    groupBy: z.string().optional(),
    asRatio: z.boolean().optional(),
    numberFormat: numberFormat.optional(),
    ...timeExtras,
  }),
  table: z.object({
    displayType: z.literal('table'),
    sourceId: objectIdString,
    select,
    groupBy: z.string().optional(),
    asRatio: z.boolean().optional(),
    having: z.string().optional(),
    orderBy: z.string().optional(),
    groupByColumnsOnLeft: z.boolean().optional(),
    numberFormat: numberFormat.optional(),
    onClick: onClick.optional(),
  }),
  number: z.object({
    displayType: z.literal('number'),
    sourceId: objectIdString,
    select: oneSelect,
    numberFormat: numberFormat.optional(),
    ...numberColors,
  }),
  pie: z.object({
    displayType: z.literal('pie'),
    sourceId: objectIdString,
    select: oneSelect,
    ...categorical,
  }),
  bar: z.object({
    displayType: z.literal('bar'),
    sourceId: objectIdString,
    select: oneSelect,
    ...categorical,
  }),
  heatmap: z.object({
    displayType: z.literal('heatmap'),
    sourceId: objectIdString,
    select: z.array(z.object({ valueExpression: z.string().min(1) })).length(1),
  }),
  search: z.object({
    displayType: z.literal('search'),
    sourceId: objectIdString,
    select: z.string(),
    where: z.string().optional(),
    whereLanguage,
  }),
  event_patterns: z.object({
    displayType: z.literal('event_patterns'),
    sourceId: objectIdString,
    select: z.string().optional(),
    where: z.string().optional(),
    whereLanguage: whereLanguage.optional(),
  }),
  markdown: z.object({ displayType: z.literal('markdown'), markdown: z.string() }),
} as const;

const SQL_DISPLAY_TYPES = ['line', 'stacked_bar', 'table', 'number', 'pie', 'bar'] as const;
const sqlConfig = z.object({
  configType: z.literal('sql'),
  displayType: z.enum(SQL_DISPLAY_TYPES),
  connectionId: z.string().min(1),
  sqlTemplate: z.string().min(1),
  sourceId: objectIdString.optional(),
  numberFormat: numberFormat.optional(),
  ...timeExtras,
  // Kept on the variants that take them (normaliseConfig drops them elsewhere, as the service does).
  fitYAxisToData: z.boolean().optional(),
  color: paletteColor.optional(),
  onClick: onClick.optional(),
});

/** One schema per config variant; `undefined` for an unknown displayType. */
export function configSchemaFor(raw: unknown): z.ZodType | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const fields = raw as { configType?: unknown; displayType?: unknown };
  if (fields.configType === 'sql') return sqlConfig;
  return typeof fields.displayType === 'string'
    ? (builderConfigs as Record<string, z.ZodType>)[fields.displayType]
    : undefined;
}

export const tileSchema = z.object({
  id: z.string().min(1).optional(),
  name: z.string(),
  x: z.number().int().min(0).max(23),
  y: z.number().int().min(0),
  w: z.number().int().min(1).max(24),
  h: z.number().int().min(1),
  asRatio: z.boolean().optional(),
  series: z.array(seriesSchema).min(1).optional(),
  /** Checked per variant by `configSchemaFor`. */
  config: z.looseObject({}).optional(),
  containerId: z.string().optional(),
  tabId: z.string().optional(),
});
export type TileInput = z.output<typeof tileSchema>;

/** A dashboard filter; `appliesToSourceIds` (August 2026) names the other sources it applies to. */
const dashboardFilter = z.looseObject({
  type: z.string().optional(),
  name: z.string().min(1),
  expression: z.string(),
  sourceId: objectIdString,
  appliesToSourceIds: z.array(objectIdString).optional(),
});
export type DashboardFilterInput = z.output<typeof dashboardFilter>;

export const dashboardBodySchema = z.object({
  name: z.string().max(1024),
  tiles: z.array(z.unknown()).max(500),
  tags: z.array(z.string().max(32)).max(50).optional(),
  filters: z.array(dashboardFilter).optional(),
  savedQuery: z.string().nullable().optional(),
  savedQueryLanguage: whereLanguage.nullable().optional(),
  savedFilterValues: z.array(z.looseObject({})).optional(),
});

const webhookChannel = z.object({ type: z.literal('webhook'), webhookId: objectIdString });
const emailChannel = z.object({
  type: z.literal('email'),
  emailRecipients: z.array(z.email()).min(1),
});

/**
 * Create and update both need the full alert. `/api/v2` takes `channels` (webhooks only); the
 * management API one `channel`, webhook or email. Both take `numConsecutiveWindows` (the
 * management API since August 2026).
 */
export function alertBodySchema(surface: 'api' | 'management') {
  const allowChannels = surface === 'api';
  return z
    .object({
      name: z.string().nullable().optional(),
      message: z.string().nullable().optional(),
      note: z.string().min(1).max(4096).nullable().optional(),
      threshold: z.number(),
      thresholdMax: z.number().nullable().optional(),
      interval: z.enum(ALERT_INTERVALS),
      thresholdType: z.enum(THRESHOLD_TYPES),
      // An omitted source is read as saved_search (router).
      source: z.enum(ALERT_SOURCES).optional(),
      channel: (allowChannels
        ? webhookChannel
        : z.discriminatedUnion('type', [webhookChannel, emailChannel])
      ).optional(),
      ...(allowChannels ? { channels: z.array(webhookChannel).min(1).max(10).optional() } : {}),
      dashboardId: objectIdString.nullable().optional(),
      tileId: z.string().min(1).nullable().optional(),
      savedSearchId: objectIdString.nullable().optional(),
      groupBy: z.string().nullable().optional(),
      scheduleOffsetMinutes: z.number().int().min(0).nullable().optional(),
      scheduleStartAt: z.iso.datetime({ offset: true }).nullable().optional(),
      numConsecutiveWindows: z.number().int().min(1).nullable().optional(),
    })
    .superRefine((body, ctx) => {
      const channels = (body as { channels?: unknown[] }).channels;
      if (!body.channel && !channels?.length)
        ctx.addIssue({ code: 'custom', path: ['channel'], message: 'Required' });
      const source = body.source ?? 'saved_search';
      if (source === 'tile') {
        if (!body.dashboardId)
          ctx.addIssue({
            code: 'custom',
            path: ['dashboardId'],
            message: 'required for tile alerts',
          });
        if (!body.tileId)
          ctx.addIssue({ code: 'custom', path: ['tileId'], message: 'required for tile alerts' });
      } else if (!body.savedSearchId) {
        ctx.addIssue({
          code: 'custom',
          path: ['savedSearchId'],
          message: 'required for saved_search alerts',
        });
      }
      if (body.thresholdType === 'between' || body.thresholdType === 'not_between') {
        if (body.thresholdMax === undefined || body.thresholdMax === null)
          ctx.addIssue({
            code: 'custom',
            path: ['thresholdMax'],
            message: `required for thresholdType ${body.thresholdType}`,
          });
        else if (body.thresholdMax < body.threshold)
          ctx.addIssue({
            code: 'custom',
            path: ['thresholdMax'],
            message: 'must be greater than or equal to threshold',
          });
      }
    });
}
export type AlertBody = z.output<ReturnType<typeof alertBodySchema>> & {
  channels?: { type: 'webhook'; webhookId: string }[];
};

export const paginationQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
});
