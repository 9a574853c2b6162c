/**
 * The metrics endpoint's answer in the Prometheus text format, as the vendor documents it
 * (API-FACTS "Metrics endpoint"): per service its ClickHouse_ServiceInfo, and per pipe
 * ClickPipes_Info plus the counters and gauges of its kind, all from the pipe's flow on the
 * sandbox clock. An idle service or a partial scrape answers its service-info metric alone.
 */
import { pipeSourceKind, type Pipe } from '../../lib/schemas';
import type { SandboxState, ServiceRow } from '../store';
import { currentRates, totalsAt } from './flow';

type MetricType = 'counter' | 'gauge' | 'untyped';
type Labels = Record<string, string>;
interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

/** Every family the sandbox writes, in the order it writes them, with its type and help text. */
const FAMILIES: readonly [name: string, type: MetricType, help: string][] = [
  [
    'ClickHouse_ServiceInfo',
    'untyped',
    'Information about service, including cluster status and ClickHouse version',
  ],
  ['ClickHouseProfileEvents_Query', 'counter', 'Number of queries to be interpreted and executed.'],
  [
    'ClickPipes_Info',
    'gauge',
    'Always equal to 1. Label "clickpipe_state" contains the current state of the pipe',
  ],
  ['ClickPipes_FetchedEvents_Total', 'counter', 'Total number of records fetched from the source.'],
  ['ClickPipes_SentEvents_Total', 'counter', 'Total number of records sent to ClickHouse'],
  ['ClickPipes_FetchedBytes_Total', 'counter', 'Total uncompressed bytes fetched from the source.'],
  ['ClickPipes_SentBytes_Total', 'counter', 'Total uncompressed bytes sent to ClickHouse.'],
  ['ClickPipes_SentBytesCompressed_Total', 'counter', 'Total compressed bytes sent to ClickHouse.'],
  [
    'ClickPipes_FetchedBytesCompressed_Total',
    'counter',
    'Total bytes fetched from the source, as read over the wire.',
  ],
  [
    'ClickPipes_FetchedBytesInitialLoad_Total',
    'counter',
    'Total bytes fetched during the initial load phase, including resyncs.',
  ],
  ['ClickPipes_Errors_Total', 'counter', 'Total errors ingesting data.'],
  [
    'ClickPipes_Latency',
    'gauge',
    'Time in milliseconds between when a record was produced and when it was written.',
  ],
  ['ClickPipes_Replica_CPUUsage', 'gauge', 'Average CPU usage of the replicas, in millicores.'],
  ['ClickPipes_Replica_CPULimit', 'gauge', 'CPU limit of the replicas, in millicores.'],
  ['ClickPipes_Replica_MemoryUsage', 'gauge', 'Average memory usage of the replicas, in bytes.'],
  ['ClickPipes_Replica_MemoryLimit', 'gauge', 'Memory limit of the replicas, in bytes.'],
  [
    'ClickPipes_FetchedEvents_PerTable',
    'gauge',
    'Number of records fetched per destination table and event type.',
  ],
  ['ClickPipes_LastFetchedBatchId', 'gauge', 'ID of the last batch fetched from the source.'],
  ['ClickPipes_LastSentBatchId', 'gauge', 'ID of the last batch sent to ClickHouse.'],
  [
    'ClickPipes_SourceReplicationLatency_MiB',
    'gauge',
    'Replication slot lag at the source in MiB.',
  ],
  ['ClickPipes_CDC_CPUUsage', 'gauge', 'Average CPU usage of the CDC pipes, in millicores.'],
  ['ClickPipes_CDC_CPULimit', 'gauge', 'CPU limit of the CDC pipes, in millicores.'],
  ['ClickPipes_CDC_MemoryUsage', 'gauge', 'Average memory usage of the CDC pipes, in bytes.'],
  ['ClickPipes_CDC_MemoryLimit', 'gauge', 'Memory limit of the CDC pipes, in bytes.'],
  ['ClickPipes_CDC_NetworkReceiveBytes', 'gauge', 'Inbound network bandwidth, in bytes.'],
];

const CLICKHOUSE_VERSION = '25.8';
/** Average uncompressed size of one record, and how much compression takes off. */
const EVENT_BYTES = 160;
const COMPRESSION = 4;
/** Database pipes fetch and send in batches of this many records. */
const EVENTS_PER_BATCH = 100;
const INITIAL_LOAD_BYTES = 268_435_456;
const GiB = 1024 ** 3;

export interface ExpositionOptions {
  /** `filtered_metrics=true`: leaves out the ClickHouse server's own metrics. */
  filtered: boolean;
  now: number;
}

/** The text answer for `services` (one for a service's endpoint, all for the organization's). */
export function metricsText(
  state: SandboxState,
  services: readonly ServiceRow[],
  options: ExpositionOptions,
): string {
  const samples = services.flatMap((service) => serviceSamples(state, service, options));
  return FAMILIES.map(([name, type, help]) => {
    const lines = samples.filter((s) => s.name === name).map(sampleLine);
    if (lines.length === 0) return '';
    return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${lines.join('\n')}\n\n`;
  }).join('');
}

function serviceSamples(
  state: SandboxState,
  service: ServiceRow,
  options: ExpositionOptions,
): Sample[] {
  const labels: Labels = {
    clickhouse_org: state.organizationId,
    clickhouse_service: service.id,
    clickhouse_service_name: service.name,
  };
  const status = service.state ?? 'running';
  const partial = state.metrics?.partialServices.includes(service.id) ?? false;
  const info: Sample = {
    name: 'ClickHouse_ServiceInfo',
    labels: {
      ...labels,
      clickhouse_cluster_status: status,
      clickhouse_version: CLICKHOUSE_VERSION,
      scrape: partial ? 'partial' : 'full',
    },
    value: 1,
  };
  if (status === 'idle' || partial) return [info];
  const pipes = state.pipes.filter((p) => p.serviceId === service.id);
  const database = pipes.filter(isDatabasePipe);
  return [
    info,
    ...(options.filtered ? [] : [serverQueries(service, labels, options.now)]),
    ...pipes.flatMap((pipe) => pipeSamples(state, pipe, labels, options.now)),
    ...(database.length > 0 ? cdcSamples(state, database, labels) : []),
  ];
}

/** One of the ClickHouse server's own metrics, which `filtered_metrics=true` leaves out. */
function serverQueries(service: ServiceRow, labels: Labels, now: number): Sample {
  const host = `c-${service.name}-server-0`;
  return {
    name: 'ClickHouseProfileEvents_Query',
    labels: { ...labels, hostname: host, instance: host, table: 'system.events' },
    value: Math.floor(now / 60_000),
  };
}

function pipeSamples(state: SandboxState, pipe: Pipe, service: Labels, now: number): Sample[] {
  const labels: Labels = {
    ...service,
    clickpipe_id: pipe.id,
    clickpipe_name: pipe.name,
    clickpipe_source: sourceLabel(pipe),
  };
  const totals = totalsAt(state, pipe, now);
  const fetched = Math.floor(totals.fetched);
  const sent = Math.floor(totals.sent);
  const sample = (name: string, value: number, extra: Labels = {}): Sample => ({
    name,
    labels: { ...labels, ...extra },
    value,
  });
  const common = [
    sample('ClickPipes_Info', 1, { clickpipe_state: pipe.state }),
    sample('ClickPipes_Errors_Total', Math.floor(totals.errors)),
    sample('ClickPipes_FetchedBytesCompressed_Total', (fetched * EVENT_BYTES) / COMPRESSION),
  ];
  const moving = currentRates(state, pipe).sentPerMinute > 0;
  if (isDatabasePipe(pipe)) {
    return [
      ...common,
      sample('ClickPipes_FetchedBytesInitialLoad_Total', INITIAL_LOAD_BYTES),
      ...targetTables(pipe).map((table, _i, all) =>
        sample('ClickPipes_FetchedEvents_PerTable', Math.floor(fetched / all.length), {
          destination_table: table,
          event_type: 'insert',
        }),
      ),
      sample('ClickPipes_LastFetchedBatchId', Math.floor(fetched / EVENTS_PER_BATCH)),
      sample('ClickPipes_LastSentBatchId', Math.floor(sent / EVENTS_PER_BATCH)),
      sample('ClickPipes_SourceReplicationLatency_MiB', moving ? 0.5 : 0),
    ];
  }
  const cpuLimit = pipe.scaling?.replicaCpuMillicores ?? 500;
  const memoryLimit = Math.round((pipe.scaling?.replicaMemoryGb ?? 1) * GiB);
  return [
    ...common,
    sample('ClickPipes_FetchedEvents_Total', fetched),
    sample('ClickPipes_SentEvents_Total', sent),
    sample('ClickPipes_FetchedBytes_Total', fetched * EVENT_BYTES),
    sample('ClickPipes_SentBytes_Total', sent * EVENT_BYTES),
    sample('ClickPipes_SentBytesCompressed_Total', (sent * EVENT_BYTES) / COMPRESSION),
    // A latency is an average over the records written: none written, none reported.
    ...(moving ? [sample('ClickPipes_Latency', 340)] : []),
    sample('ClickPipes_Replica_CPUUsage', moving ? Math.round(cpuLimit * 0.35) : 0),
    sample('ClickPipes_Replica_CPULimit', cpuLimit),
    sample('ClickPipes_Replica_MemoryUsage', moving ? Math.round(memoryLimit * 0.4) : 0),
    sample('ClickPipes_Replica_MemoryLimit', memoryLimit),
  ];
}

/** The compute all database pipes of a service share. */
function cdcSamples(state: SandboxState, pipes: readonly Pipe[], labels: Labels): Sample[] {
  const fetchedPerMinute = pipes.reduce(
    (sum, pipe) => sum + currentRates(state, pipe).fetchedPerMinute,
    0,
  );
  const sample = (name: string, value: number): Sample => ({ name, labels, value });
  return [
    sample('ClickPipes_CDC_CPUUsage', fetchedPerMinute > 0 ? 700 : 50),
    sample('ClickPipes_CDC_CPULimit', 2000),
    sample('ClickPipes_CDC_MemoryUsage', 2 * GiB),
    sample('ClickPipes_CDC_MemoryLimit', 8 * GiB),
    sample('ClickPipes_CDC_NetworkReceiveBytes', fetchedPerMinute * EVENT_BYTES),
  ];
}

function isDatabasePipe(pipe: Pipe): boolean {
  return pipeSourceKind(pipe) === 'postgres';
}

/** `clickpipe_source`: the source type as the service names it (kafka, kinesis, s3, postgres). */
function sourceLabel(pipe: Pipe): string {
  const kind = pipeSourceKind(pipe);
  return kind === 'objectStorage' ? 's3' : kind;
}

function targetTables(pipe: Pipe): string[] {
  const mapped = (pipe.source?.postgres?.tableMappings ?? []).flatMap((m) =>
    m.targetTable ? [m.targetTable] : [],
  );
  if (mapped.length > 0) return mapped;
  return [pipe.destination?.table ?? pipe.name];
}

function sampleLine({ name, labels, value }: Sample): string {
  const pairs = Object.entries(labels).map(([label, text]) => `${label}="${escapeLabel(text)}"`);
  return `${name}{${pairs.join(',')}} ${value}`;
}

/** Label values escape backslash, double quote and newline (the format's three escapes). */
function escapeLabel(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
