import * as z from 'zod/mini';
import { safeInteger, withFallback } from './builders';
import { lenient, lenientNullable } from './common';

/** Every state string the real service is known to send (API-FACTS). Others stay valid. */
export const KNOWN_PIPE_STATES = [
  'Unknown',
  'Provisioning',
  'Running',
  'Degraded',
  'Stopping',
  'Stopped',
  'Failed',
  'Completed',
  'InternalError',
  'Setup',
  'Snapshot',
  'Paused',
  'Pausing',
  'Modifying',
  'Resync',
] as const;
export type KnownPipeState = (typeof KNOWN_PIPE_STATES)[number];

// Pipe records are read for id, name, state and which source they have; every other field is
// display only, so it is lenient (a surprising value reads as absent, never fails the list).
const int = /* @__PURE__ */ z.lazy(() => z.number().check(safeInteger()));
const nullableInt = /* @__PURE__ */ z.lazy(() => lenientNullable(int));
const optInt = /* @__PURE__ */ z.lazy(() => lenient(int));
const str = /* @__PURE__ */ z.lazy(() => lenient(z.string()));
const bool = /* @__PURE__ */ z.lazy(() => lenient(z.boolean()));
const nullableBool = /* @__PURE__ */ z.lazy(() => lenientNullable(z.boolean()));
const num = /* @__PURE__ */ z.lazy(() => lenient(z.number()));

export const pipeSettings = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    streaming_max_insert_wait_ms: nullableInt,
    object_storage_concurrency: nullableInt,
    object_storage_polling_interval_ms: nullableInt,
    object_storage_max_insert_bytes: nullableInt,
    object_storage_max_file_count: nullableInt,
    engine_max_threads: nullableInt,
    engine_max_insert_threads: nullableInt,
    engine_min_insert_block_size_bytes: nullableInt,
    engine_max_download_threads: nullableInt,
    engine_parallel_distributed_insert_select: nullableInt,
    object_storage_use_cluster_function: nullableBool,
    engine_parallel_view_processing: nullableBool,
  }),
);
export type PipeSettings = z.infer<typeof pipeSettings>;

export const pipeScaling = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    replicas: optInt,
    concurrency: optInt,
    replicaCpuMillicores: optInt,
    replicaMemoryGb: num,
  }),
);

export const kafkaSource = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    brokers: str,
    topics: str,
    consumerGroup: str,
    iamRole: str,
    offset: lenient(z.looseObject({ timestamp: str })),
    schemaRegistry: withFallback(
      z.optional(
        z.looseObject({
          url: str,
          authentication: str,
          caCertificate: str,
        }),
      ),
      undefined,
    ),
    caCertificate: str,
    reversePrivateEndpointIds: lenient(z.array(z.string())),
  }),
);

export const objectStorageSource = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    url: str,
    delimiter: str,
    compression: str,
    isContinuous: bool,
    queueUrl: str,
    iamRole: str,
    /** Contains credentials: redacted wherever it could be logged. */
    connectionString: str,
    path: str,
    azureContainerName: str,
  }),
);

export const kinesisSource = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    streamName: str,
    region: str,
    useEnhancedFanOut: bool,
    timestamp: optInt,
    iamRole: str,
  }),
);

export const postgresSource = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    host: str,
    port: optInt,
    database: str,
    settings: withFallback(
      z.optional(
        z.looseObject({
          syncIntervalSeconds: num,
          pullBatchSize: num,
          publicationName: str,
          replicationSlotName: str,
          allowNullableColumns: bool,
          initialLoadParallelism: num,
          snapshotNumRowsPerPartition: num,
          snapshotNumberOfParallelTables: num,
          enableFailoverSlots: bool,
        }),
      ),
      undefined,
    ),
    tableMappings: withFallback(
      z.optional(
        z.array(
          z.looseObject({
            sourceSchemaName: str,
            sourceTable: str,
            targetTable: str,
            excludedColumns: lenient(z.array(z.string())),
            useCustomSortingKey: bool,
            sortingKeys: lenient(z.array(z.string())),
          }),
        ),
      ),
      undefined,
    ),
  }),
);

/** Up to four members, one per kind of source; which one is present is not specified. */
export const pipeSource = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    kafka: lenient(kafkaSource),
    objectStorage: lenient(objectStorageSource),
    kinesis: lenient(kinesisSource),
    postgres: lenient(postgresSource),
  }),
);

export const pipeDestination = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    database: str,
    table: str,
    managedTable: bool,
    tableDefinition: withFallback(
      z.optional(
        z.looseObject({
          engine: z.optional(
            z.looseObject({
              versionColumnId: str,
              columnIds: lenient(z.array(z.string())),
            }),
          ),
          sortingKey: lenient(z.array(z.string())),
          partitionBy: str,
          primaryKey: str,
        }),
      ),
      undefined,
    ),
    columns: lenient(z.array(z.looseObject({ name: str, type: str }))),
  }),
);

export const fieldMapping = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({ sourceField: str, destinationField: str }),
);

/**
 * A pipe as read. `id` is required (nothing can be done without it); a missing or null name
 * reads as the id and a missing state as `Unknown`, so one odd record never fails the list and
 * the watchdog still reports it.
 */
export const pipe = /* @__PURE__ */ z.lazy(() =>
  z.pipe(
    z.looseObject({
      id: z.string().check(z.minLength(1)),
      serviceId: str,
      name: str,
      state: z.pipe(
        z.nullish(z.string()),
        z.transform((state) => state || 'Unknown'),
      ),
      scaling: lenient(pipeScaling),
      source: lenient(pipeSource),
      destination: lenient(pipeDestination),
      fieldMappings: lenient(z.array(fieldMapping)),
      settings: lenient(pipeSettings),
      createdAt: str,
      updatedAt: str,
    }),
    z.transform((p) => ({ ...p, name: p.name ?? p.id })),
  ),
);
export type Pipe = z.output<typeof pipe>;

export const pipeStateCommand = /* @__PURE__ */ z.lazy(() => z.enum(['start', 'stop', 'resync']));
export type PipeStateCommand = z.infer<typeof pipeStateCommand>;
export const pipeStateCommandBody = /* @__PURE__ */ z.lazy(() =>
  z.object({ command: pipeStateCommand }),
);

/** The source kind of a pipe: database (CDC) pipes may not be auto-restarted. */
export type PipeSourceKind = 'kafka' | 'objectStorage' | 'kinesis' | 'postgres' | 'unknown';
export function pipeSourceKind(p: Pick<Pipe, 'source'>): PipeSourceKind {
  const source = p.source;
  for (const kind of ['kafka', 'objectStorage', 'kinesis', 'postgres'] as const) {
    if (source?.[kind]) return kind;
  }
  return 'unknown';
}
