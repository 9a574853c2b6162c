/**
 * Metrics answers in the shapes the vendor documents (API-FACTS "Metrics endpoint" and the
 * published samples it was read from), with ids and numbers of our own: a running service with a
 * streaming pipe, a database pipe and an unknown metric; an idle service; a partial scrape; and
 * the older sample's style (`clickpipe_status`, a blank line after each HELP).
 */
export const ORG = '5d0c6a0e-3f61-4b1c-9a4e-2c7f0e8d1a01';
export const SERVICE = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const OTHER_SERVICE = '0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f';
export const KAFKA_PIPE = 'c0ffee00-1111-4222-8333-444455556666';
export const PG_PIPE = 'deadbeef-7777-4888-9999-aaaabbbbcccc';

const service = (id = SERVICE, name = 'orders prod') =>
  `clickhouse_org="${ORG}",clickhouse_service="${id}",clickhouse_service_name="${name}"`;
const kafka = `${service()},clickpipe_id="${KAFKA_PIPE}",clickpipe_name="orders kafka",clickpipe_source="confluent"`;
const pg = `${service()},clickpipe_id="${PG_PIPE}",clickpipe_name="users cdc",clickpipe_source="postgres"`;

export function serviceInfo(status: string, scrape: string, id = SERVICE, name = 'orders prod') {
  return [
    '# HELP ClickHouse_ServiceInfo Information about service, including cluster status and ClickHouse version',
    '# TYPE ClickHouse_ServiceInfo untyped',
    `ClickHouse_ServiceInfo{${service(id, name)},clickhouse_cluster_status="${status}",clickhouse_version="25.6",scrape="${scrape}"} 1`,
    '',
  ].join('\n');
}

/** A running service: both pipes, one unknown ClickHouse metric, blank lines between families. */
export const RUNNING = [
  serviceInfo('running', 'full'),
  '# HELP ClickHouseProfileEvents_Query Number of queries to be interpreted and potentially executed.',
  '# TYPE ClickHouseProfileEvents_Query counter',
  `ClickHouseProfileEvents_Query{${service()},hostname="c-server-0",instance="c-server-0",table="system.events"} 12`,
  '',
  '# HELP ClickPipes_Info Always equal to 1. Label "clickpipe_state" contains the current state of the pipe',
  '# TYPE ClickPipes_Info gauge',
  `ClickPipes_Info{${kafka},clickpipe_state="Running"} 1`,
  `ClickPipes_Info{${pg},clickpipe_state="Running"} 1`,
  '',
  '# HELP ClickPipes_FetchedEvents_Total Total number of records fetched from the source.',
  '# TYPE ClickPipes_FetchedEvents_Total counter',
  `ClickPipes_FetchedEvents_Total{${kafka}} 4412907`,
  '',
  '# HELP ClickPipes_SentEvents_Total Total number of records sent to ClickHouse',
  '# TYPE ClickPipes_SentEvents_Total counter',
  `ClickPipes_SentEvents_Total{${kafka}} 4411530`,
  '',
  '# TYPE ClickPipes_FetchedBytes_Total counter',
  `ClickPipes_FetchedBytes_Total{${kafka}} 702113456`,
  '# TYPE ClickPipes_SentBytes_Total counter',
  `ClickPipes_SentBytes_Total{${kafka}} 391022871`,
  '# TYPE ClickPipes_SentBytesCompressed_Total counter',
  `ClickPipes_SentBytesCompressed_Total{${kafka}} 97755717`,
  '# TYPE ClickPipes_FetchedBytesCompressed_Total counter',
  `ClickPipes_FetchedBytesCompressed_Total{${kafka}} 702113456`,
  `ClickPipes_FetchedBytesCompressed_Total{${pg}} 5120000`,
  '# TYPE ClickPipes_Errors_Total counter',
  `ClickPipes_Errors_Total{${kafka}} 0`,
  `ClickPipes_Errors_Total{${pg}} 3`,
  '# HELP ClickPipes_Latency Time in milliseconds between when the record was produced to when it was written to ClickHouse.',
  '# TYPE ClickPipes_Latency gauge',
  `ClickPipes_Latency{${kafka}} 275`,
  '# TYPE ClickPipes_Replica_CPUUsage gauge',
  `ClickPipes_Replica_CPUUsage{${kafka}} 180`,
  '# TYPE ClickPipes_Replica_CPULimit gauge',
  `ClickPipes_Replica_CPULimit{${kafka}} 500`,
  '# TYPE ClickPipes_Replica_MemoryUsage gauge',
  `ClickPipes_Replica_MemoryUsage{${kafka}} 429496729`,
  '# TYPE ClickPipes_Replica_MemoryLimit gauge',
  `ClickPipes_Replica_MemoryLimit{${kafka}} 1073741824`,
  '# TYPE ClickPipes_FetchedBytesInitialLoad_Total counter',
  `ClickPipes_FetchedBytesInitialLoad_Total{${pg}} 268435456`,
  '# TYPE ClickPipes_FetchedEvents_PerTable gauge',
  `ClickPipes_FetchedEvents_PerTable{${pg},destination_table="users",event_type="insert"} 120`,
  `ClickPipes_FetchedEvents_PerTable{${pg},destination_table="users",event_type="update"} 30`,
  '# TYPE ClickPipes_LastFetchedBatchId gauge',
  `ClickPipes_LastFetchedBatchId{${pg}} 1807`,
  '# TYPE ClickPipes_LastSentBatchId gauge',
  `ClickPipes_LastSentBatchId{${pg}} 1806`,
  '# TYPE ClickPipes_SourceReplicationLatency_MiB gauge',
  `ClickPipes_SourceReplicationLatency_MiB{${pg}} 1.5`,
  '# TYPE ClickPipes_CDC_CPUUsage gauge',
  `ClickPipes_CDC_CPUUsage{${service()}} 640`,
  '# TYPE ClickPipes_CDC_CPULimit gauge',
  `ClickPipes_CDC_CPULimit{${service()}} 2000`,
  '',
].join('\n');

/** An idle service: only its service-info metric (reading metrics does not wake it). */
export const IDLE = serviceInfo('idle', 'full');

/** A scrape that failed in part: only the service-info metric, marked partial. */
export const PARTIAL = serviceInfo('running', 'partial');

/** The older docs sample's style: `clickpipe_status`, a blank line after HELP, no TYPE repeats. */
export const OLDER_STYLE = [
  '# HELP ClickPipes_Info Always equal to 1. Label "clickpipe_state" contains the current state of the pipe',
  '',
  '# TYPE ClickPipes_Info gauge',
  `ClickPipes_Info{${kafka},clickpipe_status="Running"} 1`,
  '',
  '',
  '# HELP ClickPipes_SentEvents_Total Total number of records sent to ClickHouse',
  '',
  '# TYPE ClickPipes_SentEvents_Total counter',
  `ClickPipes_SentEvents_Total{${kafka}} 5500`,
].join('\n');

/**
 * One published version of the sample has a sample broken across two lines (a label name at the
 * end of line 4, its `="..."` on line 5): a strict reader refuses it, naming the line.
 */
export const BROKEN_ACROSS_LINES = [
  '# HELP ClickPipes_SentBytesCompressed_Total Total compressed bytes sent to ClickHouse.',
  '',
  '# TYPE ClickPipes_SentBytesCompressed_Total counter',
  `ClickPipes_SentBytesCompressed_Total{clickhouse_org="${ORG}",clickhouse_service="${SERVICE}",clickhouse_service_name`,
  `="orders prod",clickpipe_id="${KAFKA_PIPE}"} 380837520`,
].join('\n');

/** The organization-wide answer: two services, one of them idle. */
export const ORGANIZATION = [
  RUNNING,
  serviceInfo('idle', 'full', OTHER_SERVICE, 'staging').split('\n').slice(2).join('\n'),
].join('');
