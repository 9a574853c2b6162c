/**
 * The current service's response contract, written down as data from
 * ../shared/API-FACTS.md ("The service as it stands today", plus the general sections where the
 * current one is silent). Each list is closed: a field the sandbox sends that is not listed here
 * fails the contract test, so the sandbox cannot drift away from the facts unnoticed.
 */
import * as z from 'zod';

// ---- enums (API-FACTS) ----
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
export const WHERE_LANGUAGES = ['sql', 'lucene'] as const;
export const QUANTILE_LEVELS = [0.5, 0.9, 0.95, 0.99] as const;
export const SOURCE_KINDS_API = ['log', 'trace', 'metric', 'session', 'promql'] as const;
/** The management document added `promql` in August 2026. */
export const SOURCE_KINDS_MANAGEMENT = SOURCE_KINDS_API;
export const WEBHOOK_SERVICES_API = ['slack', 'incidentio', 'generic'] as const;
export const WEBHOOK_SERVICES_MANAGEMENT = [
  ...WEBHOOK_SERVICES_API,
  'slack_api',
  'pagerduty_api',
] as const;
export const ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
export const THRESHOLD_TYPES = [
  'above',
  'below',
  'above_exclusive',
  'below_or_equal',
  'equal',
  'not_equal',
  'between',
  'not_between',
] as const;
export const ALERT_SOURCES = ['tile', 'saved_search'] as const;
export const ALERT_STATES_API = [
  'ALERT',
  'OK',
  'INSUFFICIENT_DATA',
  'DISABLED',
  'PENDING',
] as const;
/** PENDING is in the management document since August 2026. */
export const ALERT_STATES_MANAGEMENT = ALERT_STATES_API;
export const ROLE_TYPES = ['system', 'custom'] as const;
export const KEY_STATES = ['enabled', 'disabled'] as const;

const objectId = z.string().regex(/^[0-9a-f]{24}$/);
const isoTime = z.iso.datetime({ offset: true });

// ---- observability objects ----
export const selectItem = z.strictObject({
  aggFn: z.enum(AGG_FNS),
  valueExpression: z.string().optional(),
  alias: z.string().optional(),
  level: z.union(QUANTILE_LEVELS.map((l) => z.literal(l))).optional(),
  where: z.string().optional(),
  whereLanguage: z.enum(WHERE_LANGUAGES).optional(),
  metricName: z.string().optional(),
  metricType: z.string().optional(),
  periodAggFn: z.string().optional(),
});

const builder = {
  sourceId: objectId,
  select: z.array(selectItem).min(1).max(20),
  numberFormat: z.looseObject({}).optional(),
};
const oneSelect = z.array(selectItem).length(1);
const timeFields = {
  groupBy: z.string().optional(),
  asRatio: z.boolean().optional(),
  fillNulls: z.boolean().optional(),
  alignDateRangeToGranularity: z.boolean().optional(),
  compareToPreviousPeriod: z.boolean().optional(),
};
const color = z.string().min(1);
const colorRule = z.strictObject({
  operator: z.enum(['gt', 'gte', 'lt', 'lte', 'between', 'eq', 'neq']),
  value: z.union([z.number(), z.string(), z.tuple([z.number(), z.number()])]),
  color,
  label: z.string().max(40).optional(),
});
/** The one link-out the contract documents. */
const onClick = z.strictObject({ type: z.literal('external'), urlTemplate: z.string().min(1) });
const categorical = {
  ...builder,
  select: oneSelect,
  groupBy: z.string().optional(),
  orderBy: z.string().optional(),
  limit: z.number().int().positive().optional(),
};

/**
 * One strict schema per variant (all ten displayTypes are in both documents since August 2026),
 * so a field on the wrong variant fails: `fitYAxisToData` (line), `color`/`colorRules`/
 * `backgroundChart` (number; raw-SQL number: `color` only), `limit`/`orderBy` (pie, bar),
 * `onClick` (table).
 */
export const tileConfig = z.union([
  z.strictObject({
    displayType: z.literal('line'),
    ...builder,
    ...timeFields,
    fitYAxisToData: z.boolean().optional(),
  }),
  z.strictObject({ displayType: z.literal('stacked_bar'), ...builder, ...timeFields }),
  z.strictObject({
    displayType: z.literal('table'),
    ...builder,
    groupBy: z.string().optional(),
    asRatio: z.boolean().optional(),
    having: z.string().optional(),
    orderBy: z.string().optional(),
    groupByColumnsOnLeft: z.boolean().optional(),
    onClick: onClick.optional(),
  }),
  z.strictObject({
    displayType: z.literal('number'),
    ...builder,
    select: oneSelect,
    color: color.optional(),
    colorRules: z.array(colorRule).max(10).optional(),
    backgroundChart: z
      .strictObject({ type: z.enum(['line', 'area']), color: color.optional() })
      .optional(),
  }),
  z.strictObject({ displayType: z.literal('pie'), ...categorical }),
  z.strictObject({ displayType: z.literal('bar'), ...categorical }),
  z.strictObject({
    displayType: z.literal('search'),
    sourceId: objectId,
    select: z.string(),
    where: z.string().optional(),
    whereLanguage: z.enum(WHERE_LANGUAGES),
  }),
  z.strictObject({
    displayType: z.literal('event_patterns'),
    sourceId: objectId,
    select: z.string().optional(),
    where: z.string().optional(),
    whereLanguage: z.enum(WHERE_LANGUAGES).optional(),
  }),
  z.strictObject({ displayType: z.literal('markdown'), markdown: z.string() }),
  z.strictObject({
    configType: z.literal('sql'),
    displayType: z.enum(['line', 'stacked_bar', 'table', 'number', 'pie', 'bar']),
    connectionId: z.string().min(1),
    sqlTemplate: z.string().min(1),
    sourceId: objectId.optional(),
    numberFormat: z.looseObject({}).optional(),
    fillNulls: z.boolean().optional(),
    alignDateRangeToGranularity: z.boolean().optional(),
    compareToPreviousPeriod: z.boolean().optional(),
    fitYAxisToData: z.boolean().optional(),
    color: color.optional(),
    onClick: onClick.optional(),
  }),
]);

export const tile = z.strictObject({
  id: objectId,
  name: z.string(),
  x: z.number().int().min(0).max(23),
  y: z.number().int().min(0),
  w: z.number().int().min(1).max(24),
  h: z.number().int().min(1),
  config: tileConfig,
  containerId: z.string().optional(),
  tabId: z.string().optional(),
});

export const dashboard = z.strictObject({
  id: objectId,
  name: z.string().max(1024),
  tiles: z.array(tile).max(500),
  tags: z.array(z.string().max(32)).max(50).optional(),
  filters: z
    .array(
      z.strictObject({
        type: z.string().optional(),
        name: z.string(),
        expression: z.string(),
        sourceId: objectId,
        appliesToSourceIds: z.array(objectId).optional(),
      }),
    )
    .optional(),
  savedQuery: z.string().nullable().optional(),
  savedQueryLanguage: z.enum(WHERE_LANGUAGES).nullable().optional(),
  savedFilterValues: z.array(z.unknown()).optional(),
  containers: z.array(z.unknown()).optional(),
});

const expression = z.string().min(1);
/** The fields each kind requires (the kind's own fields beyond these pass). */
const SOURCE_KIND_FIELDS: Record<string, z.ZodRawShape> = {
  log: { timestampValueExpression: expression, defaultTableSelectExpression: expression },
  trace: {
    timestampValueExpression: expression,
    // Required and non-null since August 2026.
    defaultTableSelectExpression: expression,
    durationExpression: expression,
    durationPrecision: z.number().int().min(0).max(9),
    traceIdExpression: expression,
    spanIdExpression: expression,
    parentSpanIdExpression: expression,
    spanNameExpression: expression,
    spanKindExpression: expression,
  },
  metric: {
    timestampValueExpression: expression,
    resourceAttributesExpression: expression,
    metricTables: z.record(z.string(), z.string()),
  },
  session: { traceSourceId: objectId },
  promql: {},
};

export function source(kinds: readonly string[]) {
  const base = z.looseObject({
    id: objectId,
    name: z.string(),
    kind: z.enum(kinds as [string, ...string[]]),
    connection: z.string(),
    from: z.strictObject({ databaseName: z.string(), tableName: z.string().nullable().optional() }),
  });
  return base.superRefine((value, ctx) => {
    const fields = z.looseObject(SOURCE_KIND_FIELDS[value.kind] ?? {}).safeParse(value);
    for (const issue of fields.success ? [] : fields.error.issues)
      ctx.addIssue({
        code: 'custom',
        path: issue.path,
        message: `${value.kind}: ${issue.message}`,
      });
  });
}

export function webhook(services: readonly string[]) {
  return z.strictObject({
    id: objectId,
    name: z.string(),
    service: z.enum(services as [string, ...string[]]),
    url: z.string().optional(),
    description: z.string().optional(),
    body: z.string().optional(),
    createdAt: isoTime,
    updatedAt: isoTime,
  });
}

/** Never in a webhook answer: they are write-only. */
export const WEBHOOK_WRITE_ONLY = ['headers', 'queryParams'] as const;

export const savedSearch = z.strictObject({
  id: objectId,
  name: z.string(),
  sourceId: objectId,
  select: z.string(),
  where: z.string(),
  whereLanguage: z.enum(WHERE_LANGUAGES),
  orderBy: z.string().optional(),
  tags: z.array(z.string()),
  // Stored filters may be `lucene` or `sql_ast` (older writers); writes are `sql`.
  filters: z
    .array(z.strictObject({ type: z.enum(['sql', 'lucene', 'sql_ast']), condition: z.string() }))
    .optional(),
  teamId: objectId,
  createdAt: isoTime,
  updatedAt: isoTime,
});

const webhookChannel = z.strictObject({ type: z.literal('webhook'), webhookId: objectId });
/** The management API's other channel. */
const emailChannel = z.strictObject({
  type: z.literal('email'),
  emailRecipients: z.array(z.email()).min(1),
});

const alertFields = {
  id: objectId,
  name: z.string().nullable().optional(),
  message: z.string().nullable().optional(),
  note: z.string().nullable().optional(),
  threshold: z.number(),
  thresholdMax: z.number().nullable().optional(),
  interval: z.enum(ALERT_INTERVALS),
  thresholdType: z.enum(THRESHOLD_TYPES),
  source: z.enum(ALERT_SOURCES),
  channel: webhookChannel.optional(),
  teamId: objectId,
  dashboardId: objectId.nullable().optional(),
  tileId: z.string().nullable().optional(),
  savedSearchId: objectId.nullable().optional(),
  groupBy: z.string().nullable().optional(),
  silenced: z
    .strictObject({ by: z.string().nullable().optional(), at: isoTime, until: isoTime })
    .nullable()
    .optional(),
  scheduleOffsetMinutes: z.number().int().min(0).nullable().optional(),
  scheduleStartAt: isoTime.nullable().optional(),
  executionErrors: z
    .array(z.strictObject({ timestamp: isoTime, type: z.string(), message: z.string() }))
    .nullable()
    .optional(),
  createdAt: isoTime.nullable().optional(),
  updatedAt: isoTime.nullable().optional(),
};

/** `/api/v2`: adds `channels` (1-10, `channel` mirrors the first) and `numConsecutiveWindows`. */
export const apiAlert = z
  .strictObject({
    ...alertFields,
    state: z.enum(ALERT_STATES_API),
    channels: z.array(webhookChannel).min(1).max(10).optional(),
    numConsecutiveWindows: z.number().int().min(1).nullable().optional(),
  })
  .refine((a) => !a.channels || JSON.stringify(a.channels[0]) === JSON.stringify(a.channel), {
    message: 'channel must mirror channels[0]',
  });

/** The management document: no `channels`; a webhook or an email `channel`. */
export const managementAlert = z.strictObject({
  ...alertFields,
  channel: z.union([webhookChannel, emailChannel]).optional(),
  state: z.enum(ALERT_STATES_MANAGEMENT),
  numConsecutiveWindows: z.number().int().min(1).nullable().optional(),
});

export const paginationMeta = z.strictObject({
  total: z.number().int().min(0),
  limit: z.number().int().min(1).max(1000),
  offset: z.number().int().min(0),
});

/** All three always present; `normalized` an object or null; `path` `""` for the top level. */
export const validateResult = z.strictObject({
  valid: z.boolean(),
  errors: z.array(z.strictObject({ path: z.string(), message: z.string() })),
  normalized: z.looseObject({ name: z.string(), tiles: z.array(z.unknown()) }).nullable(),
});

// ---- management objects ----
export const keyRecord = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  roles: z.array(z.string()).optional(),
  assignedRoles: z.array(
    z.strictObject({ roleId: z.uuid(), roleName: z.string(), roleType: z.enum(ROLE_TYPES) }),
  ),
  keySuffix: z.string().length(4),
  createdAt: isoTime.optional(),
  expireAt: isoTime.nullable().optional(),
  usedAt: isoTime.optional(),
  ipAccessList: z.array(z.looseObject({ source: z.string() })).optional(),
  state: z.enum(KEY_STATES).optional(),
});

/** API-FACTS, "Audit trail": the key events and who made them. */
export const KEY_UPDATE_TYPES = [
  'created',
  'deleted',
  'name-changed',
  'role-changed',
  'state-changed',
  'date-changed',
  'ip-access-list-changed',
  'org-role-changed',
  'default-service-role-changed',
  'service-role-changed',
  'roles-v2-changed',
] as const;
export const ACTOR_TYPES = ['user', 'support', 'system', 'api'] as const;
export const activity = z.strictObject({
  id: z.string(),
  createdAt: isoTime,
  organizationId: z.uuid(),
  type: z.enum(['key_create', 'key_delete', 'openapi_key_update']),
  keyUpdateType: z.enum(KEY_UPDATE_TYPES).optional(),
  targetKeyId: z.string(),
  actorType: z.enum(ACTOR_TYPES),
  actorId: z.string(),
  actorDetails: z.string(),
  actorIpAddress: z.string(),
  userAgent: z.string(),
});

export const managementEnvelope = <T extends z.ZodType>(result: T) =>
  z.strictObject({ status: z.literal(200), requestId: z.uuid(), result });
/** `/api/v2` success envelope: `{ data }` and nothing else. */
export const observabilityData = <T extends z.ZodType>(data: T) => z.strictObject({ data });
export const managementEmpty = z.strictObject({ status: z.literal(200), requestId: z.uuid() });
export const managementError = z.strictObject({
  status: z.number().int(),
  error: z.string().regex(/^[A-Z_]+: /),
  requestId: z.uuid(),
});
export const apiError = z.strictObject({ message: z.string() });

// ---- metrics endpoint (Prometheus text, "Metrics endpoint (one call per service)") ----
export const CLUSTER_STATUSES = ['awaking', 'running', 'degraded', 'idle', 'stopped'] as const;
export const SCRAPES = ['full', 'partial'] as const;
/** Every sample carries these. */
export const SERVICE_LABELS = [
  'clickhouse_org',
  'clickhouse_service',
  'clickhouse_service_name',
] as const;
/** Every pipe sample adds these. */
export const PIPE_LABELS = ['clickpipe_id', 'clickpipe_name', 'clickpipe_source'] as const;

/**
 * Which samples carry a metric: `service` (the service-info metric), `all` pipes, `streaming`
 * (streaming and object-storage pipes), `database` (CDC) pipes, or `database service` (shared by
 * a service's CDC pipes, no pipe labels).
 */
export type MetricScope = 'service' | 'all' | 'streaming' | 'database' | 'database service';

/** Every metric the endpoint documents, with its TYPE and scope. */
export const METRIC_FAMILIES: Readonly<
  Record<string, { types: readonly string[]; scope: MetricScope }>
> = {
  // The sample writes `untyped`, the text calls it a gauge.
  ClickHouse_ServiceInfo: { types: ['untyped', 'gauge'], scope: 'service' },
  ClickPipes_Info: { types: ['gauge'], scope: 'all' },
  ClickPipes_Errors_Total: { types: ['counter'], scope: 'all' },
  ClickPipes_FetchedBytesCompressed_Total: { types: ['counter'], scope: 'all' },
  ClickPipes_FetchedEvents_Total: { types: ['counter'], scope: 'streaming' },
  ClickPipes_SentEvents_Total: { types: ['counter'], scope: 'streaming' },
  ClickPipes_FetchedBytes_Total: { types: ['counter'], scope: 'streaming' },
  ClickPipes_SentBytes_Total: { types: ['counter'], scope: 'streaming' },
  ClickPipes_SentBytesCompressed_Total: { types: ['counter'], scope: 'streaming' },
  ClickPipes_Latency: { types: ['gauge'], scope: 'streaming' },
  ClickPipes_Replica_CPUUsage: { types: ['gauge'], scope: 'streaming' },
  ClickPipes_Replica_CPULimit: { types: ['gauge'], scope: 'streaming' },
  ClickPipes_Replica_MemoryUsage: { types: ['gauge'], scope: 'streaming' },
  ClickPipes_Replica_MemoryLimit: { types: ['gauge'], scope: 'streaming' },
  ClickPipes_FetchedBytesInitialLoad_Total: { types: ['counter'], scope: 'database' },
  ClickPipes_FetchedEvents_PerTable: { types: ['gauge'], scope: 'database' },
  ClickPipes_LastFetchedBatchId: { types: ['gauge'], scope: 'database' },
  ClickPipes_LastSentBatchId: { types: ['gauge'], scope: 'database' },
  ClickPipes_SourceReplicationLatency_MiB: { types: ['gauge'], scope: 'database' },
  ClickPipes_CDC_SourceLatency: { types: ['gauge'], scope: 'database' },
  ClickPipes_CDC_DestinationLatency: { types: ['gauge'], scope: 'database' },
  ClickPipes_CDC_CPUUsage: { types: ['gauge'], scope: 'database service' },
  ClickPipes_CDC_CPULimit: { types: ['gauge'], scope: 'database service' },
  ClickPipes_CDC_MemoryUsage: { types: ['gauge'], scope: 'database service' },
  ClickPipes_CDC_MemoryLimit: { types: ['gauge'], scope: 'database service' },
  ClickPipes_CDC_NetworkReceiveBytes: { types: ['gauge'], scope: 'database service' },
};
/** The ClickHouse server's own metrics (the sample's `ClickHouseProfileEvents_Query`). */
export const SERVER_METRIC = /^ClickHouse(ProfileEvents|Metrics|AsyncMetrics)_\w+$/;
/** `clickpipe_source` of database (CDC) pipes; every other source streams or reads objects. */
export const DATABASE_SOURCES = ['postgres', 'mysql', 'mongodb', 'bigquery'] as const;
