import * as z from 'zod/mini';
import { safeInteger, withFallback } from './builders';
import { lenient, lenientNullable } from './common';

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
const absentIfNull = <T extends z.ZodMiniType>(schema: T) =>
  z.pipe(
    z.transform<unknown, unknown>((v) => (v === null ? undefined : v)),
    z.optional(schema),
  );
const optionalString = z.lazy(() => absentIfNull(z.string()));

/**
 * Series as the service returns it (the spec's form; the current service never answers it but
 * the spec snapshot does). Value sets are open (spec 2.6), and every field but `type` may be
 * missing or null; unknown fields pass through.
 */
export const series = z.lazy(() =>
  z.looseObject({
    type: z.string(),
    dataSource: optionalString,
    sourceId: optionalString,
    aggFn: optionalString,
    field: optionalString,
    where: optionalString,
    whereLanguage: optionalString,
    groupBy: absentIfNull(z.array(z.string())),
  }),
);

/** A number tile's conditional colour: the last rule that matches wins. */
export const colorRule = z.lazy(() =>
  z.looseObject({
    operator: z.string().check(z.describe('gt, gte, lt, lte, between, eq or neq')),
    value: z
      .unknown()
      .check(z.describe('A number; [low, high] with between; a string with eq / neq')),
    color: z.string().check(z.describe('Palette colour shown when the rule matches')),
    label: z.optional(z.string()).check(z.describe('Legend text (up to 40 characters)')),
  }),
);
/** A sparkline behind a number tile's value (`line` | `area`). */
export const backgroundChart = z.lazy(() =>
  z.looseObject({
    type: z.string().check(z.describe('line or area')),
    color: z.optional(z.string()).check(z.describe('Palette colour of the chart')),
  }),
);
/** A link out of a tile; the contract documents `{ type: "external", urlTemplate }`. */
export const tileOnClick = z.lazy(() =>
  z.looseObject({
    type: z.string().check(z.describe('external (the one documented kind)')),
    urlTemplate: z.optional(z.string()).check(z.describe('The link, with {{column}} placeholders')),
  }),
);

/**
 * A tile's `config` form (what the current service answers for every tile). Only
 * `displayType` is assumed; the older fields are read by the normaliser defensively, and the
 * August 2026 optional fields are typed but lenient, so a field of an unexpected shape can never
 * fail a parse.
 */
export const tileConfig = z.lazy(() =>
  z.looseObject({
    displayType: z.optional(z.string()),
    /** line */
    fitYAxisToData: lenient(z.boolean()),
    /** number (raw-SQL number: `color` only) */
    color: lenient(z.string()),
    colorRules: lenient(z.array(colorRule)),
    backgroundChart: lenient(backgroundChart),
    /** pie, bar */
    limit: lenient(z.number()),
    orderBy: lenient(z.string()),
    onClick: lenient(tileOnClick),
  }),
);

const readTile = z.lazy(() =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    name: z.string(),
    x: z.number(),
    y: z.number(),
    w: z.number(),
    h: z.number(),
    asRatio: absentIfNull(z.boolean()),
    series: absentIfNull(z.array(series)),
    config: absentIfNull(tileConfig),
  }),
);

/** Some config-form answers carry the tile name inside `config`; read it from either place. */
export const tile = z.lazy(() =>
  z.pipe(
    z.transform((raw) => {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
      const t = raw as Record<string, unknown>;
      if (typeof t.name === 'string') return raw;
      const config = t.config as Record<string, unknown> | null | undefined;
      const name = config && typeof config === 'object' ? config.name : undefined;
      return { ...t, name: typeof name === 'string' ? name : '' };
    }),
    readTile,
  ),
);
export type Tile = z.infer<typeof readTile>;

/**
 * A dashboard filter as read: `{ id?, type, name, expression, sourceId, appliesToSourceIds?, ... }`
 * (the sources a filter applies to, new in August 2026; absent = the filter's own source).
 */
const dashboardFilter = z.lazy(() =>
  z.looseObject({
    type: lenient(z.string()),
    name: lenient(z.string()),
    expression: lenient(z.string()),
    sourceId: lenient(z.string()),
    appliesToSourceIds: lenient(z.array(z.string())),
  }),
);

export const dashboard = z.lazy(() =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    name: z.string(),
    /** Absent when the service sends none; never defaulted, so a read adds nothing to diff. */
    filters: lenient(z.array(dashboardFilter)),
    savedQuery: lenientNullable(z.string()),
    savedQueryLanguage: lenientNullable(z.string()),
    tiles: z.pipe(
      z.nullish(z.array(tile)),
      z.transform((v) => v ?? []),
    ),
    tags: z.pipe(
      z.nullish(z.array(z.string())),
      z.transform((v) => v ?? []),
    ),
  }),
);
export type Dashboard = z.infer<typeof dashboard>;

/** A series in a write: the current service also wants `sourceId`, `where`, `whereLanguage`. */
export const seriesWrite = z.lazy(() =>
  z.looseObject({
    type: z.string().check(z.minLength(1)),
    dataSource: z.optional(z.string()),
    sourceId: z.optional(z.string()),
    aggFn: z.optional(z.string()),
    field: z.optional(z.string()),
    where: z.optional(z.string()),
    whereLanguage: z.optional(z.string()),
    groupBy: z.optional(z.array(z.string())),
  }),
);

/** A select item of a builder config (a heatmap's has no `aggFn`). */
const selectItemWrite = z.lazy(() =>
  z.looseObject({
    aggFn: z.optional(z.string().check(z.minLength(1))),
    valueExpression: z.optional(z.string()),
    alias: z.optional(z.string()),
    level: z.optional(z.number()),
    where: z.optional(z.string()),
    whereLanguage: z.optional(z.string()),
  }),
);

/**
 * A `config` in a write, chosen by `displayType` (any of DISPLAY_TYPES, or `configType: "sql"`).
 * The fields cloudops writes are typed so a wrong shape fails before the request; the rest pass
 * as given (the dry-run validate judges them).
 */
const tileConfigWrite = z.lazy(() =>
  z.looseObject({
    displayType: z.optional(z.string().check(z.minLength(1))),
    configType: z.optional(z.string()),
    sourceId: z.optional(z.string()),
    select: z.optional(z.union([z.string(), z.array(selectItemWrite)])),
    groupBy: z.optional(z.string()),
    orderBy: z.optional(z.string()),
    limit: z.optional(z.number().check(safeInteger(), z.positive())),
    where: z.optional(z.string()),
    whereLanguage: z.optional(z.string()),
    fitYAxisToData: z.optional(z.boolean()),
    color: z.optional(z.string().check(z.minLength(1))),
    colorRules: z.optional(z.array(colorRule).check(z.maxLength(10))),
    // Same types as the read schemas (a read tile can be written back), narrowed by refinements.
    backgroundChart: z.optional(
      backgroundChart.check(
        z.refine((b) => b.type === 'line' || b.type === 'area', {
          path: ['type'],
          message: 'must be line or area',
        }),
      ),
    ),
    onClick: z.optional(
      tileOnClick.check(
        z.refine(
          (c) => c.type === 'external' && typeof c.urlTemplate === 'string' && c.urlTemplate !== '',
          {
            message: 'must be { type: "external", urlTemplate }',
          },
        ),
      ),
    ),
    markdown: z.optional(z.string()),
  }),
);

/**
 * A tile in a write, in either form (`series` or `config`); `id` present for an existing tile
 * (keeps it and its alerts), absent for a new one.
 */
export const tileWrite = z.lazy(() =>
  z.looseObject({
    id: z.optional(z.string().check(z.minLength(1))),
    name: z.string(),
    x: z.number(),
    y: z.number(),
    w: z.number(),
    h: z.number(),
    asRatio: z.optional(z.boolean()),
    series: z.optional(z.array(seriesWrite)),
    config: z.optional(tileConfigWrite),
  }),
);
export type TileWrite = z.input<typeof tileWrite>;

/**
 * A dashboard filter in a write; `appliesToSourceIds` names the sources it also applies to. Typed
 * as the read (a read dashboard can be written back); what a write needs is checked.
 */
const dashboardFilterWrite = z.lazy(() =>
  z
    .looseObject({
      type: z.optional(z.string().check(z.minLength(1))),
      name: z.optional(z.string()),
      expression: z.optional(z.string()),
      sourceId: z.optional(z.string()),
      appliesToSourceIds: z.optional(z.array(z.string().check(z.minLength(1)))),
    })
    .check(
      z.superRefine((filter, ctx) => {
        for (const field of ['name', 'expression', 'sourceId'] as const)
          if (!filter[field])
            ctx.addIssue({ code: 'custom', path: [field], message: 'required for a filter' });
      }),
    ),
);

const dashboardWriteFields = {
  name: z.string().check(z.minLength(1), z.maxLength(DASHBOARD_LIMITS.nameMax)),
  tiles: z.array(tileWrite).check(z.maxLength(DASHBOARD_LIMITS.tilesMax)),
  tags: z.optional(
    z
      .array(z.string().check(z.maxLength(DASHBOARD_LIMITS.tagLengthMax)))
      .check(z.maxLength(DASHBOARD_LIMITS.tagsMax)),
  ),
  filters: z.optional(z.array(dashboardFilterWrite)),
  savedQuery: z.optional(z.nullable(z.string())),
  savedQueryLanguage: z.optional(z.nullable(z.enum(['sql', 'lucene']))),
};

/** Create/update dashboard body (spec 4.7: no field is marked required). */
export const dashboardWrite = z.lazy(() =>
  z.object({
    ...dashboardWriteFields,
    name: z.optional(dashboardWriteFields.name),
    tiles: z.optional(dashboardWriteFields.tiles),
  }),
);
export type DashboardWrite = z.input<typeof dashboardWrite>;

/*
 * The dry run's schemas are marked pure: a bundle that never validates remotely (the deployed
 * sync plans offline) drops them.
 */

/** What the dry-run validate takes: a create body, `name` and `tiles` required. */
export const dashboardValidateBody = /* @__PURE__ */ z.lazy(() => z.object(dashboardWriteFields));
export type DashboardValidateBody = z.input<typeof dashboardValidateBody>;

/** One problem the dry run found: `path` dot-separated (`""` = the dashboard itself). */
const validationIssue = /* @__PURE__ */ z.lazy(() =>
  z.object({
    path: withFallback(z.string(), ''),
    message: withFallback(z.string(), '(no message)'),
  }),
);

const normalized = /* @__PURE__ */ z.lazy(() => lenientNullable(z.looseObject({})));

/**
 * What a dry-run validate means: `valid`, `invalid` with its issues, or `unavailable` (the
 * service answered without `valid`: it could not judge, which is not a refusal).
 */
export const dashboardValidation = /* @__PURE__ */ z.lazy(() =>
  z.discriminatedUnion('outcome', [
    z.object({ outcome: z.literal('valid'), normalized }),
    z.object({ outcome: z.literal('invalid'), errors: z.array(validationIssue), normalized }),
    z.object({ outcome: z.literal('unavailable'), reason: z.string() }),
  ]),
);
export type DashboardValidation = z.infer<typeof dashboardValidation>;

const answer = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    valid: z.boolean(),
    errors: withFallback(z.array(validationIssue), []),
    normalized,
  }),
);

/** The answer `{ valid, errors, normalized }` (any shape) read as a DashboardValidation. */
export const dashboardValidationAnswer = /* @__PURE__ */ z.lazy(() =>
  z.pipe(
    z.unknown(),
    z.transform((raw): DashboardValidation => {
      const read = answer.safeParse(raw);
      if (!read.success)
        return { outcome: 'unavailable', reason: 'the service answered without a "valid" verdict' };
      const { valid, errors, normalized: stored } = read.data;
      return valid
        ? { outcome: 'valid', normalized: stored }
        : { outcome: 'invalid', errors, normalized: stored };
    }),
  ),
);
