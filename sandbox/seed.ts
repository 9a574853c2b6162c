import { registerSecret } from '../lib/redact';
import type { Pipe } from '../lib/schemas';
import { consoleCreated } from './management/activities';
import { newKeyMaterial, objectId, randomText, sha256Base64, uuidV4 } from './ids';
import type {
  DashboardRow,
  SandboxState,
  ServiceRow,
  SourceRow,
  TokenRow,
  WebhookRow,
} from './store';

/** Creates a bearer token bound to a service; only its hash is stored. Returns the token once. */
export function issueToken(
  state: SandboxState,
  serviceId: string,
  now: number,
  label?: string,
): { token: string; row: TokenRow } {
  const token = `hdx_${randomText(40)}`;
  registerSecret(token);
  const row: TokenRow = {
    label: label ?? `token-${state.tokens.length + 1}-${randomText(4).toLowerCase()}`,
    serviceId,
    tokenHash: sha256Base64(token),
    createdAt: new Date(now).toISOString(),
  };
  if (state.tokens.some((t) => t.label === row.label))
    throw new Error(`a token labelled "${row.label}" already exists`);
  state.tokens.push(row);
  return { token, row };
}

export function addWebhook(
  state: SandboxState,
  serviceId: string,
  name?: string,
  url?: string,
): WebhookRow {
  const row: WebhookRow = {
    id: objectId(),
    serviceId,
    name: name ?? `webhook-${state.webhooks.length + 1}`,
    url: url ?? 'http://127.0.0.1:9/hook',
  };
  state.webhooks.push(row);
  return row;
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];

function basePipe(serviceId: string, name: string, state: string, at: string): Pipe {
  return {
    id: uuidV4(),
    serviceId,
    name,
    state,
    scaling: {
      replicas: 1 + Math.floor(Math.random() * 4),
      concurrency: pick([1, 2, 4]),
      replicaCpuMillicores: pick([125, 250, 500, 1000]),
      replicaMemoryGb: pick([0.5, 1, 2, 4]),
    },
    destination: {
      database: 'default',
      table: name.replace(/-/g, '_'),
      managedTable: true,
      tableDefinition: {
        engine: { versionColumnId: 'version', columnIds: [] },
        sortingKey: ['id'],
        partitionBy: 'toYYYYMM(ts)',
        primaryKey: 'id',
      },
      columns: [
        { name: 'id', type: 'String' },
        { name: 'ts', type: 'DateTime64(3)' },
        { name: 'payload', type: 'String' },
      ],
    },
    fieldMappings: [
      { sourceField: 'id', destinationField: 'id' },
      { sourceField: 'timestamp', destinationField: 'ts' },
      { sourceField: 'body', destinationField: 'payload' },
    ],
    settings: {
      streaming_max_insert_wait_ms: pick([500, 1000, 5000]),
      object_storage_concurrency: null,
      object_storage_polling_interval_ms: null,
      object_storage_max_insert_bytes: null,
      object_storage_max_file_count: null,
      engine_max_threads: pick([0, 4, 8]),
      engine_max_insert_threads: pick([0, 2, 4]),
      engine_min_insert_block_size_bytes: 0,
      engine_max_download_threads: 4,
      engine_parallel_distributed_insert_select: 0,
      object_storage_use_cluster_function: false,
      engine_parallel_view_processing: false,
    },
    createdAt: at,
    updatedAt: at,
  };
}

function seedPipes(services: ServiceRow[], at: string): Pipe[] {
  const [first, second] = services as [ServiceRow, ServiceRow];
  const kafka = basePipe(first.id, 'orders-kafka', 'Running', at);
  kafka.source = {
    kafka: {
      brokers: 'b-1.demo.kafka.local:9092,b-2.demo.kafka.local:9092',
      topics: 'orders',
      consumerGroup: 'cloudops-demo',
      offset: { timestamp: at },
    },
  };
  const storage = basePipe(first.id, 'events-object-storage', 'Failed', at);
  storage.source = {
    objectStorage: {
      url: 'https://demo-bucket.s3.amazonaws.com/events/*.json.gz',
      compression: 'auto',
      isContinuous: true,
      // Fake credentials: the field is a secret by contract, so it is seeded with one.
      connectionString: `DefaultEndpointsProtocol=https;AccountName=demo;AccountKey=${randomText(32)};EndpointSuffix=core.windows.net`,
      azureContainerName: 'events',
      path: 'events/*.json.gz',
    },
  };
  storage.settings = {
    ...storage.settings,
    object_storage_concurrency: 4,
    object_storage_polling_interval_ms: 30_000,
    object_storage_max_insert_bytes: 10_485_760,
    object_storage_max_file_count: 100,
  };
  const kinesis = basePipe(first.id, 'clicks-kinesis', 'Stopped', at);
  kinesis.source = {
    kinesis: {
      streamName: 'clicks',
      region: 'eu-west-1',
      useEnhancedFanOut: false,
      timestamp: Date.parse(at),
    },
  };
  const postgres = basePipe(first.id, 'users-postgres-cdc', 'Provisioning', at);
  postgres.source = {
    postgres: {
      host: 'pg.demo.internal',
      port: 5432,
      database: 'app',
      settings: {
        syncIntervalSeconds: 60,
        pullBatchSize: 100_000,
        publicationName: 'cloudops_pub',
        replicationSlotName: 'cloudops_slot',
      },
      tableMappings: [
        {
          sourceSchemaName: 'public',
          sourceTable: 'users',
          targetTable: 'users',
          excludedColumns: [],
          useCustomSortingKey: false,
          sortingKeys: [],
        },
      ],
    },
  };
  const secondKafka = basePipe(second.id, 'audit-kafka', 'Running', at);
  secondKafka.source = {
    kafka: {
      brokers: 'b-1.audit.kafka.local:9092',
      topics: 'audit',
      consumerGroup: 'cloudops-audit',
    },
  };
  const secondPostgres = basePipe(second.id, 'billing-postgres-cdc', 'Paused', at);
  secondPostgres.source = {
    postgres: { host: 'billing.demo.internal', port: 5432, database: 'billing', tableMappings: [] },
  };
  return [kafka, storage, kinesis, postgres, secondKafka, secondPostgres];
}

function tile(name: string, x: number, y: number, type: string, where: string, now: number) {
  return {
    id: objectId(now),
    name,
    x,
    y,
    w: 12,
    h: 4,
    asRatio: false,
    series: [{ type, dataSource: 'events', aggFn: 'count', where, groupBy: [] }],
  };
}

interface SeedResult {
  state: SandboxState;
  /** Plain credentials for the secrets the caller seeds in the Secrets Manager emulator. */
  keyId: string;
  keySecret: string;
  observabilityToken: string;
}

/** Random but valid demo data. `seed` secret ids are filled in by the caller. */
export function seedState(now: number): SeedResult {
  const at = new Date(now).toISOString();
  const services: ServiceRow[] = [
    { id: uuidV4(), name: 'analytics-prod', team: objectId(now) },
    { id: uuidV4(), name: 'analytics-staging', team: objectId(now) },
  ];
  const [first] = services as [ServiceRow, ServiceRow];
  const material = newKeyMaterial();
  const adminKeyId = uuidV4();
  const dashboards: DashboardRow[] = [
    {
      id: objectId(now),
      name: 'Ingestion overview',
      tags: ['demo', 'ingestion'],
      tiles: [
        tile('Errors', 0, 0, 'time', 'level:error', now),
        tile('Events', 12, 0, 'number', '', now),
      ],
      serviceId: first.id,
      createdAt: at,
      updatedAt: at,
    },
    {
      id: objectId(now),
      name: 'Pipe health',
      tags: ['demo'],
      tiles: [tile('Pipe failures', 0, 0, 'time', 'service:pipes level:error', now)],
      serviceId: first.id,
      createdAt: at,
      updatedAt: at,
    },
  ];
  const state: SandboxState = {
    version: 1,
    clockOffsetMs: 0,
    organizationId: uuidV4(),
    services,
    keys: [
      {
        id: adminKeyId,
        name: 'sandbox-admin',
        roles: ['admin'],
        keySuffix: material.keyId.slice(-4),
        keyIdHash: sha256Base64(material.keyId),
        keySecretHash: sha256Base64(material.keySecret),
        createdAt: at,
        expireAt: null,
        ipAccessList: [],
        state: 'enabled',
      },
    ],
    pipes: seedPipes(services, at),
    dashboards,
    alerts: [],
    webhooks: [],
    sources: services.flatMap((s): SourceRow[] => [
      { id: objectId(now), serviceId: s.id, name: 'Logs', kind: 'log' },
    ]),
    tokens: [],
    seed: {
      serviceId: first.id,
      keyId: material.keyId,
      keySecret: material.keySecret,
      keyRecordId: adminKeyId,
      observabilityToken: '',
      keySecretId: '',
      observabilityTokenSecretId: '',
      pipeIds: [],
      webhookId: '',
    },
  };
  state.sources.push({ id: objectId(now), serviceId: first.id, name: 'Metrics', kind: 'metric' });
  // The seed key was made by a person in the console, as a first key always is.
  consoleCreated(state, state.keys[0], now);
  state.seed.pipeIds = state.pipes.map((p) => p.id);
  const webhooks = services.map((s) => addWebhook(state, s.id, `${s.name}-alerts`));
  state.seed.webhookId = webhooks[0].id;
  const watched = dashboards[0];
  state.alerts.push({
    id: objectId(now),
    name: 'Too many errors',
    message: 'Error rate above threshold',
    threshold: 10,
    interval: '5m',
    thresholdType: 'above',
    source: 'tile',
    state: 'OK',
    channel: { type: 'webhook', webhookId: webhooks[0].id },
    team: first.team,
    tileId: watched.tiles[0].id,
    dashboard: watched.id,
    savedSearch: null,
    groupBy: null,
    silenced: false,
    createdAt: at,
    updatedAt: at,
    serviceId: first.id,
  });
  const { token } = issueToken(state, first.id, now, 'sandbox-token');
  state.seed.observabilityToken = token;
  return { state, keyId: material.keyId, keySecret: material.keySecret, observabilityToken: token };
}
