/**
 * The dashboard file format (DESIGN.md "Dashboard files"): one dashboard per YAML/JSON file,
 * tile ids left out, plus an optional identity `key`, optional `alerts` on a tile, and names
 * (`source:`, `webhook:`) where the service wants ids. A tile is written in the spec's `series`
 * form, the service's newer `config` form, or as `markdown:`. Objects are strict so a typo'd
 * field is an error, not ignored. Rules across fields live in validate.ts.
 */
import * as z from 'zod/mini';
import { THRESHOLD_TYPES } from '../schemas/alert';
import {
  AGG_FNS,
  backgroundChart,
  colorRule,
  ALERT_INTERVALS,
  DASHBOARD_LIMITS,
  DISPLAY_TYPES,
  isoDateTime,
  SERIES_TYPES,
  tileOnClick,
} from '../schemas';
import { MARKER_TAG_COUNT } from './ownership';

const COLS = DASHBOARD_LIMITS.gridColumns;

/** A key is a path-like identity: letters, digits, `.`, `_`, `-`, `/`. */
export const dashboardKey = z.lazy(() =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(200),
      z.regex(
        /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/,
        'letters, digits, ".", "_", "-" and "/" only',
      ),
    ),
);

/** A service of the management API: its UUID (the same form CLOUDOPS_SERVICE_ID takes). */
export const serviceId = z.uuid({
  version: undefined,
  error: 'expected a service id (a UUID, as in CLOUDOPS_SERVICE_ID); write a name as a ${VARIABLE}',
});

/** The service's ids are Mongo ObjectIds. */
export const objectIdString = z
  .string()
  .check(z.regex(/^[0-9a-fA-F]{24}$/, 'expected a 24-hex-character id'));

const sourceName = z.lazy(() =>
  z
    .string()
    .check(
      z.minLength(1),
      z.describe('Name of a source of the service, resolved to its sourceId once per run'),
    ),
);
const sourceIdField = objectIdString.check(
  z.describe('Id of a source of the service (24 hex characters); or name it with `source:`'),
);
export const WHERE_LANGUAGES = ['sql', 'lucene'] as const;
const whereLanguage = z.lazy(() =>
  z
    .enum(WHERE_LANGUAGES)
    .check(z.describe('Language of `where`: sql or lucene (required by the current service)')),
);
export const QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;

export const fileSeries = z
  .strictObject({
    type: z.enum(SERIES_TYPES).check(z.describe('Series type; all series of one tile share it')),
    source: z.optional(sourceName),
    sourceId: z.optional(sourceIdField),
    dataSource: z
      .optional(z.string().check(z.minLength(1)))
      .check(
        z.describe(
          'Data source of the spec snapshot (e.g. events); not used by the current service',
        ),
      ),
    aggFn: z
      .optional(z.enum(AGG_FNS))
      .check(z.describe('Aggregation (not on search or markdown series)')),
    field: z
      .optional(z.string())
      .check(z.describe('Column or expression aggregated (not with count)')),
    alias: z.optional(z.string()).check(z.describe('Legend name of the series')),
    where: z.optional(z.string()).check(z.describe('Filter; sent as "" when absent')),
    whereLanguage: z.optional(whereLanguage),
    groupBy: z
      .optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(10)))
      .check(z.describe('Group-by columns (time and table series, at most 10; order matters)')),
    level: z
      .optional(z.number().check(z.gte(0), z.lte(1)))
      .check(z.describe('Quantile level, with aggFn quantile')),
    metricName: z.optional(z.string()).check(z.describe('Metric name (metric sources)')),
    metricDataType: z.optional(z.string()).check(z.describe('Metric data type (metric sources)')),
    numberFormat: z
      .optional(z.record(z.string(), z.unknown()))
      .check(z.describe('Number format, passed through')),
    displayType: z
      .optional(z.enum(['line', 'stacked_bar']))
      .check(z.describe('Chart kind of a time series (default line)')),
    sortOrder: z
      .optional(z.enum(['asc', 'desc']))
      .check(z.describe('Sort order of a table series')),
    fields: z.optional(z.array(z.string())).check(z.describe('Columns shown by a search series')),
    content: z.optional(z.string()).check(z.describe('Text of a markdown series')),
  })
  .check(z.describe('A series (the spec form): the service stores it in the config form'));
export type FileSeries = z.infer<typeof fileSeries>;

export const fileSelectItem = z
  .strictObject({
    aggFn: z
      .optional(z.enum(AGG_FNS))
      .check(z.describe('Aggregation (required except on heatmap tiles)')),
    valueExpression: z
      .optional(z.string())
      .check(z.describe('What is aggregated; required except with count, refused with count')),
    alias: z.optional(z.string()).check(z.describe('Legend name')),
    level: z
      .optional(z.number())
      .check(z.describe('Quantile level (0.5, 0.9, 0.95 or 0.99), with aggFn quantile only')),
    where: z.optional(z.string()).check(z.describe('Filter of this select item')),
    whereLanguage: z.optional(whereLanguage),
    metricName: z.optional(z.string()).check(z.describe('Metric name (metric sources)')),
    metricType: z.optional(z.string()).check(z.describe('Metric type (metric sources)')),
  })
  .check(z.describe('One aggregation of a config tile'));

export const fileTileConfig = z
  .strictObject({
    displayType: z.enum(DISPLAY_TYPES).check(z.describe('Chart kind; chooses the other fields')),
    source: z.optional(sourceName),
    sourceId: z.optional(sourceIdField),
    select: z
      .optional(
        z.union([z.array(fileSelectItem).check(z.minLength(1), z.maxLength(20)), z.string()]),
      )
      .check(
        z.describe('Aggregations (1–20; pie, bar, number: 1), or the columns of a search tile'),
      ),
    groupBy: z.optional(z.string()).check(z.describe('Group-by expression (not on number tiles)')),
    where: z.optional(z.string()).check(z.describe('Filter of the whole tile')),
    whereLanguage: z.optional(whereLanguage),
    asRatio: z
      .optional(z.boolean())
      .check(
        z.describe(
          'Show the first select item over the second (line, stacked_bar, table; 2 items)',
        ),
      ),
    markdown: z.optional(z.string()).check(z.describe('Text of a markdown tile')),
    numberFormat: z
      .optional(z.record(z.string(), z.unknown()))
      .check(z.describe('Number format, passed through')),
    configType: z
      .optional(z.literal('sql'))
      .check(z.describe('Raw-SQL variant: needs connectionId + sqlTemplate')),
    connectionId: z.optional(z.string()).check(z.describe('Connection of a raw-SQL tile')),
    sqlTemplate: z.optional(z.string()).check(z.describe('Query of a raw-SQL tile')),
    // The August 2026 optional fields: their inner shape is left to the service's dry run.
    fitYAxisToData: z.optional(z.boolean()).check(z.describe('line: fit the y axis to the data')),
    color: z
      .optional(z.string().check(z.minLength(1)))
      .check(z.describe('number: colour of the value')),
    colorRules: z
      .optional(z.array(colorRule).check(z.maxLength(10)))
      .check(
        z.describe(
          'number: colour rules `{ operator, value, color, label? }`, the last match wins',
        ),
      ),
    backgroundChart: z
      .optional(backgroundChart)
      .check(z.describe('number: a chart behind the value, `{ type: line | area, color? }`')),
    onClick: z
      .optional(tileOnClick)
      .check(z.describe('table: `{ type: external, urlTemplate }`, opened on a click')),
    limit: z
      .optional(z.number().check(z.int(), z.positive()))
      .check(z.describe('pie, bar: how many groups are shown')),
    orderBy: z.optional(z.string()).check(z.describe('pie, bar, table: ordering expression')),
  })
  .check(z.describe('A tile in the config form (what the service answers)'));
export type FileTileConfig = z.infer<typeof fileTileConfig>;

export { THRESHOLD_TYPES, type ThresholdType } from '../schemas/alert';

/** Recipients of one email channel (cloudops' bound: a channel, not a mailing list). */
const EMAIL_RECIPIENTS_MAX = 50;

const fileAlertChannel = z.lazy(() =>
  z
    .strictObject({
      type: z
        .string()
        .check(
          z.minLength(1),
          z.describe('Channel type: webhook (a webhook of the service) or email (management API)'),
        ),
      webhookId: z
        .optional(z.string().check(z.minLength(1)))
        .check(z.describe('Id of a webhook of the service (checked against the webhooks list)')),
      webhook: z
        .optional(z.string().check(z.minLength(1)))
        .check(z.describe('Name of a webhook of the service, resolved to its id once per run')),
      emailRecipients: z
        .optional(
          z
            .array(z.email({ error: 'not an email address' }))
            .check(z.minLength(1), z.maxLength(EMAIL_RECIPIENTS_MAX)),
        )
        .check(
          z.describe(
            `Addresses an email channel notifies (1–${EMAIL_RECIPIENTS_MAX}, with type email)`,
          ),
        ),
    })
    .check(
      z.describe(
        'Where the alert notifies: a webhook (by name or id) or email recipients, one of them',
      ),
    ),
);

/**
 * Thresholds stay where a float64 still counts in ones: beyond that a typo'd value is sent as
 * something else than written.
 */
const THRESHOLD_BOUND = Number.MAX_SAFE_INTEGER;
const threshold = () => z.number().check(z.gte(-THRESHOLD_BOUND), z.lte(THRESHOLD_BOUND));
/** cloudops' bound: more windows in a row than this is a different alert (a longer interval). */
const CONSECUTIVE_WINDOWS_MAX = 100;

/**
 * An alert declared in a file (on a tile, or on a saved search); the alert engine writes it once
 * what it watches has an id. Rules across fields live in validate.ts.
 */
export const fileAlert = z.lazy(() =>
  z
    .strictObject({
      name: z
        .string()
        .check(z.minLength(1), z.describe('Unique on its tile; identifies the alert across syncs')),
      threshold: threshold().check(
        z.describe('Threshold (the lower bound for between / not_between)'),
      ),
      thresholdMax: z
        .optional(threshold())
        .check(z.describe('Upper bound, with between / not_between only; >= threshold')),
      thresholdType: z
        .enum(THRESHOLD_TYPES)
        .check(z.describe('How the value is compared with the threshold')),
      interval: z.enum(ALERT_INTERVALS).check(z.describe('Evaluation window')),
      numConsecutiveWindows: z
        .optional(z.int().check(z.gte(1), z.lte(CONSECUTIVE_WINDOWS_MAX)))
        .check(
          z.describe(
            `Fire only after this many windows in a row (1–${CONSECUTIVE_WINDOWS_MAX}); the alert is PENDING until then`,
          ),
        ),
      scheduleOffsetMinutes: z
        .optional(z.int().check(z.gte(0), z.lte(1439)))
        .check(
          z.describe(
            'Shift each window by this many minutes (below the interval); not with scheduleStartAt',
          ),
        ),
      scheduleStartAt: z
        .optional(isoDateTime)
        .check(
          z.describe('Align the windows to this ISO date-time; not with scheduleOffsetMinutes'),
        ),
      channel: fileAlertChannel,
      message: z.optional(z.string()).check(z.describe('Text sent with the notification')),
    })
    .check(z.describe('An alert (on line, stacked_bar and number tiles)')),
);
export type FileAlert = z.infer<typeof fileAlert>;

export const tileKey = z.lazy(() =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(100),
      z.regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only'),
    ),
);

const fileTile = z.lazy(() =>
  z
    .strictObject({
      key: z
        .optional(tileKey)
        .check(
          z.describe(
            'Stable identity of the tile: with it, renaming the tile keeps its id and alerts',
          ),
        ),
      name: z.string().check(z.minLength(1), z.describe('Title; unique within the dashboard')),
      x: z.int().check(z.gte(0), z.lte(COLS - 1), z.describe('Column, 0–23')),
      y: z.int().check(z.gte(0), z.describe('Row, >= 0')),
      w: z.int().check(z.gte(1), z.lte(COLS), z.describe('Width in columns, 1–24; x + w <= 24')),
      h: z.int().check(z.gte(1), z.describe('Height in rows, >= 1')),
      asRatio: z
        .optional(z.boolean())
        .check(z.describe('Series form: show the first series over the second')),
      series: z.optional(z.array(fileSeries)).check(z.describe('The query, spec form')),
      config: z.optional(fileTileConfig),
      markdown: z
        .optional(z.string())
        .check(z.describe('A markdown tile: its text (instead of series/config)')),
      alerts: z.optional(z.array(fileAlert)).check(z.describe('Alerts watching this tile')),
    })
    .check(z.describe('A tile: exactly one of series, config or markdown')),
);
export type FileTile = z.infer<typeof fileTile>;

/** A dashboard filter: a picker of values of `expression` in one source (and the others listed). */
export const fileDashboardFilter = z
  .strictObject({
    name: z.string().check(z.minLength(1), z.describe('Label of the filter')),
    expression: z
      .string()
      .check(z.minLength(1), z.describe('Column or expression whose values the filter offers')),
    type: z
      .optional(z.string().check(z.minLength(1)))
      .check(z.describe('Filter type, as the service names it')),
    source: z.optional(sourceName),
    sourceId: z.optional(sourceIdField),
    appliesToSourceIds: z
      .optional(z.array(objectIdString).check(z.maxLength(20)))
      .check(z.describe('Other sources the filter also applies to, by id (August 2026)')),
  })
  .check(z.describe('A dashboard filter; its source by `source: <name>` or `sourceId`'));
export type FileDashboardFilter = z.infer<typeof fileDashboardFilter>;

/** User tags: the marker tags cloudops adds count against the service's 50-tag limit. */
const USER_TAGS_MAX = DASHBOARD_LIMITS.tagsMax - MARKER_TAG_COUNT;

export const dashboardFile = z.lazy(() =>
  z
    .strictObject({
      /** Lets editors find the JSON Schema; ignored otherwise. */
      $schema: z.optional(z.string()).check(z.describe('Where editors find this schema; ignored')),
      kind: z
        .optional(z.literal('dashboard'))
        .check(
          z.describe('What the file declares: dashboard (the default), webhook or savedSearch'),
        ),
      key: z
        .optional(dashboardKey)
        .check(z.describe('Identity of the dashboard; default: the file path without extension')),
      name: z
        .string()
        .check(z.minLength(1), z.maxLength(DASHBOARD_LIMITS.nameMax), z.describe('Dashboard name')),
      services: z
        .optional(z.array(serviceId).check(z.minLength(1)))
        .check(
          z.describe(
            'Services this dashboard is applied to (ids from CLOUDOPS_SERVICE_ID; write a name as a ' +
              '`${VARIABLE}`); default: the configured service (--service, else the first)',
          ),
        ),
      tags: z
        .optional(
          z
            .array(z.string().check(z.minLength(1), z.maxLength(DASHBOARD_LIMITS.tagLengthMax)))
            .check(z.maxLength(USER_TAGS_MAX)),
        )
        .check(
          z.describe(
            `Tags (at most ${USER_TAGS_MAX}, 32 characters each; "cloudops*" is reserved)`,
          ),
        ),
      tiles: z
        .optional(z.array(fileTile).check(z.maxLength(DASHBOARD_LIMITS.tilesMax)))
        .check(z.describe('Tiles')),
      filters: z
        .optional(z.array(fileDashboardFilter).check(z.maxLength(20)))
        .check(z.describe('Dashboard filters; absent: the service keeps the ones it has')),
    })
    .check(z.describe('One dashboard')),
);
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
