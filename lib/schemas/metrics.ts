/**
 * The metrics endpoint (`GET .../services/{serviceId}/prometheus`, API-FACTS "Metrics endpoint"):
 * the vendor's metric and label names, matched verbatim, and the typed reading of one service that
 * the client returns. Every metric is optional: a reading holds what the answer carried.
 */
import * as z from 'zod/mini';

/** Label names every sample or a group of samples carries. */
export const METRIC_LABELS = {
  organization: 'clickhouse_org',
  service: 'clickhouse_service',
  serviceName: 'clickhouse_service_name',
  /** ClickHouse_ServiceInfo: awaking | running | degraded | idle | stopped. */
  clusterStatus: 'clickhouse_cluster_status',
  version: 'clickhouse_version',
  /** ClickHouse_ServiceInfo: full | partial (partial = only the service-info metric came back). */
  scrape: 'scrape',
  pipeId: 'clickpipe_id',
  pipeName: 'clickpipe_name',
  pipeSource: 'clickpipe_source',
  pipeState: 'clickpipe_state',
  /** The state's name in one older sample of the docs. */
  pipeStateOld: 'clickpipe_status',
  destinationTable: 'destination_table',
  eventType: 'event_type',
} as const;

export const SERVICE_INFO_METRIC = 'ClickHouse_ServiceInfo';
export const PIPE_INFO_METRIC = 'ClickPipes_Info';
export const PIPE_EVENTS_PER_TABLE_METRIC = 'ClickPipes_FetchedEvents_PerTable';

/**
 * Per-pipe metrics (samples carrying `clickpipe_id`), by the reading's field name. `counter`s of
 * one pipe add up across series (as `sum by (clickpipe_id)`); for a `gauge` the largest value
 * wins (the latest batch id, the slowest replica).
 */
export const PIPE_METRICS = {
  // streaming and object storage
  fetchedEvents: { metric: 'ClickPipes_FetchedEvents_Total', kind: 'counter' },
  sentEvents: { metric: 'ClickPipes_SentEvents_Total', kind: 'counter' },
  fetchedBytes: { metric: 'ClickPipes_FetchedBytes_Total', kind: 'counter' },
  sentBytes: { metric: 'ClickPipes_SentBytes_Total', kind: 'counter' },
  sentBytesCompressed: { metric: 'ClickPipes_SentBytesCompressed_Total', kind: 'counter' },
  latencyMs: { metric: 'ClickPipes_Latency', kind: 'gauge' },
  replicaCpuUsage: { metric: 'ClickPipes_Replica_CPUUsage', kind: 'gauge' },
  replicaCpuLimit: { metric: 'ClickPipes_Replica_CPULimit', kind: 'gauge' },
  replicaMemoryUsage: { metric: 'ClickPipes_Replica_MemoryUsage', kind: 'gauge' },
  replicaMemoryLimit: { metric: 'ClickPipes_Replica_MemoryLimit', kind: 'gauge' },
  // database (CDC)
  fetchedBytesInitialLoad: { metric: 'ClickPipes_FetchedBytesInitialLoad_Total', kind: 'counter' },
  lastFetchedBatchId: { metric: 'ClickPipes_LastFetchedBatchId', kind: 'gauge' },
  lastSentBatchId: { metric: 'ClickPipes_LastSentBatchId', kind: 'gauge' },
  sourceReplicationLatencyMiB: { metric: 'ClickPipes_SourceReplicationLatency_MiB', kind: 'gauge' },
  sourceLatency: { metric: 'ClickPipes_CDC_SourceLatency', kind: 'gauge' },
  destinationLatency: { metric: 'ClickPipes_CDC_DestinationLatency', kind: 'gauge' },
  // every pipe
  errors: { metric: 'ClickPipes_Errors_Total', kind: 'counter' },
  fetchedBytesCompressed: { metric: 'ClickPipes_FetchedBytesCompressed_Total', kind: 'counter' },
} as const;

/** Service-wide CDC metrics (all database pipes of a service share their compute). */
export const CDC_METRICS = {
  cpuUsage: { metric: 'ClickPipes_CDC_CPUUsage', kind: 'gauge' },
  cpuLimit: { metric: 'ClickPipes_CDC_CPULimit', kind: 'gauge' },
  memoryUsage: { metric: 'ClickPipes_CDC_MemoryUsage', kind: 'gauge' },
  memoryLimit: { metric: 'ClickPipes_CDC_MemoryLimit', kind: 'gauge' },
  networkReceiveBytes: { metric: 'ClickPipes_CDC_NetworkReceiveBytes', kind: 'gauge' },
} as const;

/** A finite number: NaN and ±Inf on the wire read as "no reading". */
const reading = /* @__PURE__ */ z.lazy(() => z.optional(z.number()));

function optionalReadings<K extends string>(fields: Readonly<Record<K, unknown>>) {
  const shape = Object.fromEntries(Object.keys(fields).map((field) => [field, reading]));
  return shape as Record<K, typeof reading>;
}

export const tableEvents = /* @__PURE__ */ z.lazy(() =>
  z.object({
    table: z.string(),
    eventType: z.string(),
    events: z.number(),
  }),
);

/** One pipe as the metrics describe it. `state` is any string (API-FACTS: never a parse failure). */
export const pipeReading = /* @__PURE__ */ z.lazy(() =>
  z.object({
    pipeId: z.string().check(z.minLength(1)),
    name: z.optional(z.string()),
    /** `clickpipe_source`: kafka, confluent, s3, postgres, ... */
    source: z.optional(z.string()),
    /** `clickpipe_state` of ClickPipes_Info (or the older `clickpipe_status`). */
    state: z.optional(z.string()),
    ...optionalReadings(PIPE_METRICS),
    /** ClickPipes_FetchedEvents_PerTable (database pipes), one entry per table and event type. */
    eventsPerTable: z.optional(z.array(tableEvents)),
  }),
);
export type PipeReading = z.infer<typeof pipeReading>;

/**
 * One service's answer. `observed` is false when the answer says nothing about its pipes (an
 * idle service, a partial scrape, or only the service-info metric): "not observed this run",
 * never "no pipes" or "stopped".
 */
export const serviceReading = /* @__PURE__ */ z.lazy(() =>
  z.object({
    serviceId: z.string().check(z.minLength(1)),
    serviceName: z.optional(z.string()),
    organizationId: z.optional(z.string()),
    /** awaking | running | degraded | idle | stopped; any other string is kept as sent. */
    clusterStatus: z.optional(z.string()),
    /** full | partial. */
    scrape: z.optional(z.string()),
    version: z.optional(z.string()),
    observed: z.boolean(),
    pipes: z.array(pipeReading),
    cdc: z.object(optionalReadings(CDC_METRICS)),
  }),
);
export type ServiceReading = z.infer<typeof serviceReading>;
