/**
 * The dashboard file format (DESIGN.md "Dashboard files"): one dashboard per YAML/JSON file,
 * tile ids left out, plus an optional identity `key`, optional `alerts` on a tile, and names
 * (`source:`, `webhook:`) where the service wants ids. A tile is written in the spec's `series`
 * form, the service's newer `config` form, or as `markdown:`. Objects are strict so a typo'd
 * field is an error, not ignored. Rules across fields live in validate.ts.
 */
import * as z from 'zod';
import { THRESHOLD_TYPES } from '../schemas/alert';
import {
  AGG_FNS,
  backgroundChart,
  colorRule,
  ALERT_INTERVALS,
  DASHBOARD_LIMITS,
  DISPLAY_TYPES,
  SERIES_TYPES,
  tileOnClick,
} from '../schemas';
import { MARKER_TAG_COUNT } from './ownership';

const COLS = DASHBOARD_LIMITS.gridColumns;

/** A key is a path-like identity: letters, digits, `.`, `_`, `-`, `/`. */
export const dashboardKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, 'letters, digits, ".", "_", "-" and "/" only');

/** A service of the management API: its UUID (the same form CLOUDOPS_SERVICE_ID takes). */
export const serviceId = z.uuid({
  version: undefined,
  error: 'expected a service id (a UUID, as in CLOUDOPS_SERVICE_ID); write a name as a ${VARIABLE}',
});

/** The service's ids are Mongo ObjectIds. */
export const objectIdString = z
  .string()
  .regex(/^[0-9a-fA-F]{24}$/, 'expected a 24-hex-character id');

const sourceName = z
  .string()
  .min(1)
  .describe('Name of a source of the service, resolved to its sourceId once per run');
const sourceIdField = objectIdString.describe(
  'Id of a source of the service (24 hex characters); or name it with `source:`',
);
export const WHERE_LANGUAGES = ['sql', 'lucene'] as const;
const whereLanguage = z
  .enum(WHERE_LANGUAGES)
  .describe('Language of `where`: sql or lucene (required by the current service)');
export const QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;

export const fileSeries = z
  .strictObject({
    type: z.enum(SERIES_TYPES).describe('Series type; all series of one tile share it'),
    source: sourceName.optional(),
    sourceId: sourceIdField.optional(),
    dataSource: z
      .string()
      .min(1)
      .optional()
      .describe('Data source of the spec snapshot (e.g. events); not used by the current service'),
    aggFn: z.enum(AGG_FNS).optional().describe('Aggregation (not on search or markdown series)'),
    field: z.string().optional().describe('Column or expression aggregated (not with count)'),
    alias: z.string().optional().describe('Legend name of the series'),
    where: z.string().optional().describe('Filter; sent as "" when absent'),
    whereLanguage: whereLanguage.optional(),
    groupBy: z
      .array(z.string().min(1))
      .max(10)
      .optional()
      .describe('Group-by columns (time and table series, at most 10; order matters)'),
    level: z.number().min(0).max(1).optional().describe('Quantile level, with aggFn quantile'),
    metricName: z.string().optional().describe('Metric name (metric sources)'),
    metricDataType: z.string().optional().describe('Metric data type (metric sources)'),
    numberFormat: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Number format, passed through'),
    displayType: z
      .enum(['line', 'stacked_bar'])
      .optional()
      .describe('Chart kind of a time series (default line)'),
    sortOrder: z.enum(['asc', 'desc']).optional().describe('Sort order of a table series'),
    fields: z.array(z.string()).optional().describe('Columns shown by a search series'),
    content: z.string().optional().describe('Text of a markdown series'),
  })
  .describe('A series (the spec form): the service stores it in the config form');
export type FileSeries = z.infer<typeof fileSeries>;

export const fileSelectItem = z
  .strictObject({
    aggFn: z.enum(AGG_FNS).optional().describe('Aggregation (required except on heatmap tiles)'),
    valueExpression: z
      .string()
      .optional()
      .describe('What is aggregated; required except with count, refused with count'),
    alias: z.string().optional().describe('Legend name'),
    level: z
      .number()
      .optional()
      .describe('Quantile level (0.5, 0.9, 0.95 or 0.99), with aggFn quantile only'),
    where: z.string().optional().describe('Filter of this select item'),
    whereLanguage: whereLanguage.optional(),
    metricName: z.string().optional().describe('Metric name (metric sources)'),
    metricType: z.string().optional().describe('Metric type (metric sources)'),
  })
  .describe('One aggregation of a config tile');

export const fileTileConfig = z
  .strictObject({
    displayType: z.enum(DISPLAY_TYPES).describe('Chart kind; chooses the other fields'),
    source: sourceName.optional(),
    sourceId: sourceIdField.optional(),
    select: z
      .union([z.array(fileSelectItem).min(1).max(20), z.string()])
      .optional()
      .describe('Aggregations (1–20; pie, bar, number: 1), or the columns of a search tile'),
    groupBy: z.string().optional().describe('Group-by expression (not on number tiles)'),
    where: z.string().optional().describe('Filter of the whole tile'),
    whereLanguage: whereLanguage.optional(),
    asRatio: z
      .boolean()
      .optional()
      .describe('Show the first select item over the second (line, stacked_bar, table; 2 items)'),
    markdown: z.string().optional().describe('Text of a markdown tile'),
    numberFormat: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Number format, passed through'),
    configType: z
      .literal('sql')
      .optional()
      .describe('Raw-SQL variant: needs connectionId + sqlTemplate'),
    connectionId: z.string().optional().describe('Connection of a raw-SQL tile'),
    sqlTemplate: z.string().optional().describe('Query of a raw-SQL tile'),
    // The August 2026 optional fields: their inner shape is left to the service's dry run.
    fitYAxisToData: z.boolean().optional().describe('line: fit the y axis to the data'),
    color: z.string().min(1).optional().describe('number: colour of the value'),
    colorRules: z
      .array(colorRule)
      .max(10)
      .optional()
      .describe('number: colour rules `{ operator, value, color, label? }`, the last match wins'),
    backgroundChart: backgroundChart
      .optional()
      .describe('number: a chart behind the value, `{ type: line | area, color? }`'),
    onClick: tileOnClick
      .optional()
      .describe('table: `{ type: external, urlTemplate }`, opened on a click'),
    limit: z.number().int().positive().optional().describe('pie, bar: how many groups are shown'),
    orderBy: z.string().optional().describe('pie, bar, table: ordering expression'),
  })
  .describe('A tile in the config form (what the service answers)');
export type FileTileConfig = z.infer<typeof fileTileConfig>;

export { THRESHOLD_TYPES, type ThresholdType } from '../schemas/alert';

const fileAlertChannel = z
  .strictObject({
    type: z.string().min(1).describe('Channel type; webhook is the documented one'),
    webhookId: z
      .string()
      .min(1)
      .optional()
      .describe('Id of a webhook of the service (checked against the webhooks list)'),
    webhook: z
      .string()
      .min(1)
      .optional()
      .describe('Name of a webhook of the service, resolved to its id once per run'),
  })
  .describe('Where the alert notifies');

/** An alert declared on a tile; the alert provisioner creates it once the tile has an id. */
export const fileAlert = z
  .strictObject({
    name: z.string().min(1).describe('Unique on its tile; identifies the alert across syncs'),
    threshold: z.number().describe('Threshold (the lower bound for between / not_between)'),
    thresholdMax: z
      .number()
      .optional()
      .describe('Upper bound, with between / not_between only; >= threshold'),
    thresholdType: z.enum(THRESHOLD_TYPES).describe('How the value is compared with the threshold'),
    interval: z.enum(ALERT_INTERVALS).describe('Evaluation window'),
    channel: fileAlertChannel,
    message: z.string().optional().describe('Text sent with the notification'),
  })
  .describe('An alert on this tile (line, stacked_bar and number tiles)');
export type FileAlert = z.infer<typeof fileAlert>;

const tileKey = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only');

const fileTile = z
  .strictObject({
    key: tileKey
      .optional()
      .describe('Stable identity of the tile: with it, renaming the tile keeps its id and alerts'),
    name: z.string().min(1).describe('Title; unique within the dashboard'),
    x: z
      .int()
      .min(0)
      .max(COLS - 1)
      .describe('Column, 0–23'),
    y: z.int().min(0).describe('Row, >= 0'),
    w: z.int().min(1).max(COLS).describe('Width in columns, 1–24; x + w <= 24'),
    h: z.int().min(1).describe('Height in rows, >= 1'),
    asRatio: z.boolean().optional().describe('Series form: show the first series over the second'),
    series: z.array(fileSeries).optional().describe('The query, spec form'),
    config: fileTileConfig.optional(),
    markdown: z
      .string()
      .optional()
      .describe('A markdown tile: its text (instead of series/config)'),
    alerts: z.array(fileAlert).optional().describe('Alerts watching this tile'),
  })
  .describe('A tile: exactly one of series, config or markdown');
export type FileTile = z.infer<typeof fileTile>;

/** User tags: the marker tags cloudops adds count against the service's 50-tag limit. */
const USER_TAGS_MAX = DASHBOARD_LIMITS.tagsMax - MARKER_TAG_COUNT;

export const dashboardFile = z
  .strictObject({
    /** Lets editors find the JSON Schema; ignored otherwise. */
    $schema: z.string().optional().describe('Where editors find this schema; ignored'),
    kind: z
      .literal('dashboard')
      .optional()
      .describe('What the file declares: dashboard (the default), webhook or savedSearch'),
    key: dashboardKey
      .optional()
      .describe('Identity of the dashboard; default: the file path without extension'),
    name: z.string().min(1).max(DASHBOARD_LIMITS.nameMax).describe('Dashboard name'),
    services: z
      .array(serviceId)
      .min(1)
      .optional()
      .describe(
        'Services this dashboard is applied to (ids from CLOUDOPS_SERVICE_ID; write a name as a ' +
          '`${VARIABLE}`); default: the configured service (--service, else the first)',
      ),
    tags: z
      .array(z.string().min(1).max(DASHBOARD_LIMITS.tagLengthMax))
      .max(USER_TAGS_MAX)
      .optional()
      .describe(`Tags (at most ${USER_TAGS_MAX}, 32 characters each; "cloudops*" is reserved)`),
    tiles: z.array(fileTile).max(DASHBOARD_LIMITS.tilesMax).optional().describe('Tiles'),
  })
  .describe('One dashboard');
export type DashboardFile = z.infer<typeof dashboardFile>;

/** JSON Schema of a dashboard file, for editors (`cloudops dashboards schema`). */
export function dashboardFileJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(dashboardFile, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
    // Editors see the file before `${NAME}` is replaced: a service is an id or a placeholder.
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema !== serviceId) return;
      const { format, pattern, ...rest } = jsonSchema;
      for (const k of Object.keys(jsonSchema)) delete jsonSchema[k];
      Object.assign(jsonSchema, rest, {
        anyOf: [{ format, pattern }, { pattern: '^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$' }],
      });
    },
  });
  return {
    ...schema,
    title: 'cloudops dashboard file',
    description:
      'One dashboard per file. Tiles are matched to the service by `key`, else by name, so ' +
      'renaming a tile without a key replaces it (and deletes the alerts watching it). ' +
      'x + w must be <= 24; tiles must not overlap. `${NAME}` in any value is a variable.',
  };
}
