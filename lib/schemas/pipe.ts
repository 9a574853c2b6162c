import * as z from 'zod';
import { uuid } from './common';

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

/** Any string: an unseen state is valid and classified as unknown by the watchdog. */
export const pipeState = z.string().min(1);

const int = z.number().int();
const nullableInt = int.nullable().optional();

export const pipeSettings = z.looseObject({
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
  object_storage_use_cluster_function: z.boolean().nullable().optional(),
  engine_parallel_view_processing: z.boolean().nullable().optional(),
});
export type PipeSettings = z.infer<typeof pipeSettings>;

export const pipeScaling = z.looseObject({
  replicas: int.optional(),
  concurrency: int.optional(),
  replicaCpuMillicores: int.optional(),
  replicaMemoryGb: z.number().optional(),
});

export const kafkaSource = z.looseObject({
  brokers: z.string().optional(),
  topics: z.string().optional(),
  consumerGroup: z.string().optional(),
  iamRole: z.string().optional(),
  offset: z.looseObject({ timestamp: z.string().optional() }).optional(),
  schemaRegistry: z
    .looseObject({
      url: z.string().optional(),
      authentication: z.string().optional(),
      caCertificate: z.string().optional(),
    })
    .optional(),
  caCertificate: z.string().optional(),
  reversePrivateEndpointIds: z.array(z.string()).optional(),
});

export const objectStorageSource = z.looseObject({
  url: z.string().optional(),
  delimiter: z.string().optional(),
  compression: z.string().optional(),
  isContinuous: z.boolean().optional(),
  queueUrl: z.string().optional(),
  iamRole: z.string().optional(),
  /** Contains credentials: redacted wherever it could be logged. */
  connectionString: z.string().optional(),
  path: z.string().optional(),
  azureContainerName: z.string().optional(),
});

export const kinesisSource = z.looseObject({
  streamName: z.string().optional(),
  region: z.string().optional(),
  useEnhancedFanOut: z.boolean().optional(),
  timestamp: int.optional(),
  iamRole: z.string().optional(),
});

export const postgresSource = z.looseObject({
  host: z.string().optional(),
  port: int.optional(),
  database: z.string().optional(),
  settings: z
    .looseObject({
      syncIntervalSeconds: z.number().optional(),
      pullBatchSize: z.number().optional(),
      publicationName: z.string().optional(),
      replicationSlotName: z.string().optional(),
      allowNullableColumns: z.boolean().optional(),
      initialLoadParallelism: z.number().optional(),
      snapshotNumRowsPerPartition: z.number().optional(),
      snapshotNumberOfParallelTables: z.number().optional(),
      enableFailoverSlots: z.boolean().optional(),
    })
    .optional(),
  tableMappings: z
    .array(
      z.looseObject({
        sourceSchemaName: z.string().optional(),
        sourceTable: z.string().optional(),
        targetTable: z.string().optional(),
        excludedColumns: z.array(z.string()).optional(),
        useCustomSortingKey: z.boolean().optional(),
        sortingKeys: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});

/** Up to four members, one per kind of source; which one is present is not specified. */
export const pipeSource = z.looseObject({
  kafka: kafkaSource.optional(),
  objectStorage: objectStorageSource.optional(),
  kinesis: kinesisSource.optional(),
  postgres: postgresSource.optional(),
});
export type PipeSource = z.infer<typeof pipeSource>;

export const pipeDestination = z.looseObject({
  database: z.string().optional(),
  table: z.string().optional(),
  managedTable: z.boolean().optional(),
  tableDefinition: z
    .looseObject({
      engine: z
        .looseObject({
          versionColumnId: z.string().optional(),
          columnIds: z.array(z.string()).optional(),
        })
        .optional(),
      sortingKey: z.array(z.string()).optional(),
      partitionBy: z.string().optional(),
      primaryKey: z.string().optional(),
    })
    .optional(),
  columns: z.array(z.looseObject({ name: z.string(), type: z.string() })).optional(),
});

export const fieldMapping = z.looseObject({
  sourceField: z.string(),
  destinationField: z.string(),
});

export const pipe = z.looseObject({
  id: uuid,
  serviceId: uuid.optional(),
  name: z.string(),
  state: pipeState,
  scaling: pipeScaling.optional(),
  source: pipeSource.optional(),
  destination: pipeDestination.optional(),
  fieldMappings: z.array(fieldMapping).optional(),
  settings: pipeSettings.optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Pipe = z.infer<typeof pipe>;

export const pipeStateCommand = z.enum(['start', 'stop', 'resync']);
export type PipeStateCommand = z.infer<typeof pipeStateCommand>;
export const pipeStateCommandBody = z.object({ command: pipeStateCommand });

/** The source kind of a pipe: database (CDC) pipes may not be auto-restarted. */
export type PipeSourceKind = 'kafka' | 'objectStorage' | 'kinesis' | 'postgres' | 'unknown';
export function pipeSourceKind(p: Pick<Pipe, 'source'>): PipeSourceKind {
  const source = p.source ?? {};
  for (const kind of ['kafka', 'objectStorage', 'kinesis', 'postgres'] as const) {
    if (source[kind]) return kind;
  }
  return 'unknown';
}
