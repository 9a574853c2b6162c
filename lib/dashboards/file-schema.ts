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

const sourceName = z.lazy(() => z.string().check(z.minLength(1)));
export const WHERE_LANGUAGES = ['sql', 'lucene'] as const;
const whereLanguage = z.lazy(() => z.enum(WHERE_LANGUAGES));
export const QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;

export const fileSeries = z.strictObject({
  type: z.enum(SERIES_TYPES),
  source: z.optional(sourceName),
  sourceId: z.optional(objectIdString),
  dataSource: z.optional(z.string().check(z.minLength(1))),
  aggFn: z.optional(z.enum(AGG_FNS)),
  field: z.optional(z.string()),
  alias: z.optional(z.string()),
  where: z.optional(z.string()),
  whereLanguage: z.optional(whereLanguage),
  groupBy: z.optional(z.array(z.string().check(z.minLength(1))).check(z.maxLength(10))),
  level: z.optional(z.number().check(z.gte(0), z.lte(1))),
  metricName: z.optional(z.string()),
  metricDataType: z.optional(z.string()),
  numberFormat: z.optional(z.record(z.string(), z.unknown())),
  displayType: z.optional(z.enum(['line', 'stacked_bar'])),
  sortOrder: z.optional(z.enum(['asc', 'desc'])),
  fields: z.optional(z.array(z.string())),
  content: z.optional(z.string()),
});
export type FileSeries = z.infer<typeof fileSeries>;

export const fileSelectItem = z.strictObject({
  aggFn: z.optional(z.enum(AGG_FNS)),
  valueExpression: z.optional(z.string()),
  alias: z.optional(z.string()),
  level: z.optional(z.number()),
  where: z.optional(z.string()),
  whereLanguage: z.optional(whereLanguage),
  metricName: z.optional(z.string()),
  metricType: z.optional(z.string()),
});

export const fileTileConfig = z.strictObject({
  displayType: z.enum(DISPLAY_TYPES),
  source: z.optional(sourceName),
  sourceId: z.optional(objectIdString),
  select: z.optional(
    z.union([z.array(fileSelectItem).check(z.minLength(1), z.maxLength(20)), z.string()]),
  ),
  groupBy: z.optional(z.string()),
  where: z.optional(z.string()),
  whereLanguage: z.optional(whereLanguage),
  asRatio: z.optional(z.boolean()),
  markdown: z.optional(z.string()),
  numberFormat: z.optional(z.record(z.string(), z.unknown())),
  configType: z.optional(z.literal('sql')),
  connectionId: z.optional(z.string()),
  sqlTemplate: z.optional(z.string()),
  // The August 2026 optional fields: their inner shape is left to the service's dry run.
  fitYAxisToData: z.optional(z.boolean()),
  color: z.optional(z.string().check(z.minLength(1))),
  colorRules: z.optional(z.array(colorRule).check(z.maxLength(10))),
  backgroundChart: z.optional(backgroundChart),
  onClick: z.optional(tileOnClick),
  limit: z.optional(z.number().check(z.int(), z.positive())),
  orderBy: z.optional(z.string()),
});
export type FileTileConfig = z.infer<typeof fileTileConfig>;

export { THRESHOLD_TYPES, type ThresholdType } from '../schemas/alert';

/** Recipients of one email channel (cloudops' bound: a channel, not a mailing list). */
export const EMAIL_RECIPIENTS_MAX = 50;

const fileAlertChannel = z.lazy(() =>
  z.strictObject({
    type: z.string().check(z.minLength(1)),
    webhookId: z.optional(z.string().check(z.minLength(1))),
    webhook: z.optional(z.string().check(z.minLength(1))),
    emailRecipients: z.optional(
      z
        .array(z.email({ error: 'not an email address' }))
        .check(z.minLength(1), z.maxLength(EMAIL_RECIPIENTS_MAX)),
    ),
  }),
);

/**
 * Thresholds stay where a float64 still counts in ones: beyond that a typo'd value is sent as
 * something else than written.
 */
const THRESHOLD_BOUND = Number.MAX_SAFE_INTEGER;
const threshold = () => z.number().check(z.gte(-THRESHOLD_BOUND), z.lte(THRESHOLD_BOUND));
/** cloudops' bound: more windows in a row than this is a different alert (a longer interval). */
export const CONSECUTIVE_WINDOWS_MAX = 100;

/**
 * An alert declared in a file (on a tile, or on a saved search); the alert engine writes it once
 * what it watches has an id. Rules across fields live in validate.ts.
 */
export const fileAlert = z.lazy(() =>
  z.strictObject({
    name: z.string().check(z.minLength(1)),
    threshold: threshold(),
    thresholdMax: z.optional(threshold()),
    thresholdType: z.enum(THRESHOLD_TYPES),
    interval: z.enum(ALERT_INTERVALS),
    numConsecutiveWindows: z.optional(z.int().check(z.gte(1), z.lte(CONSECUTIVE_WINDOWS_MAX))),
    scheduleOffsetMinutes: z.optional(z.int().check(z.gte(0), z.lte(1439))),
    scheduleStartAt: z.optional(isoDateTime),
    channel: fileAlertChannel,
    message: z.optional(z.string()),
  }),
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
  z.strictObject({
    key: z.optional(tileKey),
    name: z.string().check(z.minLength(1)),
    x: z.int().check(z.gte(0), z.lte(COLS - 1)),
    y: z.int().check(z.gte(0)),
    w: z.int().check(z.gte(1), z.lte(COLS)),
    h: z.int().check(z.gte(1)),
    asRatio: z.optional(z.boolean()),
    series: z.optional(z.array(fileSeries)),
    config: z.optional(fileTileConfig),
    markdown: z.optional(z.string()),
    alerts: z.optional(z.array(fileAlert)),
  }),
);
export type FileTile = z.infer<typeof fileTile>;

/** A dashboard filter: a picker of values of `expression` in one source (and the others listed). */
export const fileDashboardFilter = z.strictObject({
  name: z.string().check(z.minLength(1)),
  expression: z.string().check(z.minLength(1)),
  type: z.optional(z.string().check(z.minLength(1))),
  source: z.optional(sourceName),
  sourceId: z.optional(objectIdString),
  appliesToSourceIds: z.optional(z.array(objectIdString).check(z.maxLength(20))),
});
export type FileDashboardFilter = z.infer<typeof fileDashboardFilter>;

/** User tags: the marker tags cloudops adds count against the service's 50-tag limit. */
export const USER_TAGS_MAX = DASHBOARD_LIMITS.tagsMax - MARKER_TAG_COUNT;

export const dashboardFile = z.lazy(() =>
  z.strictObject({
    /** Lets editors find the JSON Schema; ignored otherwise. */
    $schema: z.optional(z.string()),
    kind: z.optional(z.literal('dashboard')),
    key: z.optional(dashboardKey),
    name: z.string().check(z.minLength(1), z.maxLength(DASHBOARD_LIMITS.nameMax)),
    services: z.optional(z.array(serviceId).check(z.minLength(1))),
    tags: z.optional(
      z
        .array(z.string().check(z.minLength(1), z.maxLength(DASHBOARD_LIMITS.tagLengthMax)))
        .check(z.maxLength(USER_TAGS_MAX)),
    ),
    tiles: z.optional(z.array(fileTile).check(z.maxLength(DASHBOARD_LIMITS.tilesMax))),
    filters: z.optional(z.array(fileDashboardFilter).check(z.maxLength(20))),
  }),
);
export type DashboardFile = z.infer<typeof dashboardFile>;
