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
export const SOURCE_KINDS_MANAGEMENT = ['log', 'trace', 'metric', 'session'] as const;
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
export const ALERT_STATES_MANAGEMENT = ['ALERT', 'OK', 'INSUFFICIENT_DATA', 'DISABLED'] as const;
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

/** Builder variants; `displayType` from the ten the /api/v2 document lists. */
export const tileConfig = z.union([
  z.strictObject({
    displayType: z.enum(['line', 'stacked_bar', 'table', 'number', 'pie', 'bar']),
    sourceId: objectId,
    select: z.array(selectItem).min(1).max(20),
    groupBy: z.string().optional(),
    asRatio: z.boolean().optional(),
    fillNulls: z.boolean().optional(),
    alignDateRangeToGranularity: z.boolean().optional(),
    compareToPreviousPeriod: z.boolean().optional(),
    numberFormat: z.looseObject({}).optional(),
    having: z.string().optional(),
    orderBy: z.string().optional(),
    groupByColumnsOnLeft: z.boolean().optional(),
  }),
  z.strictObject({
    displayType: z.literal('search'),
    sourceId: objectId,
    select: z.string(),
    where: z.string().optional(),
    whereLanguage: z.enum(WHERE_LANGUAGES),
  }),
  z.strictObject({ displayType: z.literal('markdown'), markdown: z.string() }),
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
  filters: z.array(z.unknown()).optional(),
  savedQuery: z.string().nullable().optional(),
  savedQueryLanguage: z.enum(WHERE_LANGUAGES).nullable().optional(),
  savedFilterValues: z.array(z.unknown()).optional(),
  containers: z.array(z.unknown()).optional(),
});

export function source(kinds: readonly string[]) {
  return z.looseObject({
    id: objectId,
    name: z.string(),
    kind: z.enum(kinds as [string, ...string[]]),
    connection: z.string(),
    from: z.strictObject({ databaseName: z.string(), tableName: z.string().nullable().optional() }),
  });
}

export function webhook(services: readonly string[]) {
  return z.strictObject({
    id: objectId,
    name: z.string(),
    service: z.enum(services as [string, ...string[]]),
    url: z.string().optional(),
    body: z.string().optional(),
    createdAt: isoTime,
    updatedAt: isoTime,
  });
}

const webhookChannel = z.strictObject({ type: z.literal('webhook'), webhookId: objectId });

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
    numConsecutiveWindows: z.number().int().nullable().optional(),
  })
  .refine((a) => !a.channels || JSON.stringify(a.channels[0]) === JSON.stringify(a.channel), {
    message: 'channel must mirror channels[0]',
  });

/** The management document: no `channels`, no PENDING. */
export const managementAlert = z.strictObject({
  ...alertFields,
  state: z.enum(ALERT_STATES_MANAGEMENT),
});

export const paginationMeta = z.strictObject({
  total: z.number().int().min(0),
  limit: z.number().int().min(1).max(1000),
  offset: z.number().int().min(0),
});

export const validateResult = z.strictObject({
  valid: z.boolean(),
  errors: z.array(z.strictObject({ path: z.string(), message: z.string() })),
  normalized: z.unknown(),
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
