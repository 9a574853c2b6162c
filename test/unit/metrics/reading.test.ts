import { describe, expect, it } from 'vitest';
import {
  metricsBody,
  parsePrometheusText,
  readOrganizationMetrics,
  readServiceMetrics,
} from '../../../lib/metrics';
import { serviceReading } from '../../../lib/schemas';
import {
  IDLE,
  KAFKA_PIPE,
  OLDER_STYLE,
  ORG,
  ORGANIZATION,
  OTHER_SERVICE,
  PARTIAL,
  PG_PIPE,
  RUNNING,
  SERVICE,
} from './samples';

const read = (text: string, serviceId = SERVICE) =>
  readServiceMetrics(parsePrometheusText(text).samples, serviceId);

describe('reading a running service', () => {
  const reading = read(RUNNING);

  it('says who it is and that its pipes were observed', () => {
    expect(reading).toMatchObject({
      serviceId: SERVICE,
      serviceName: 'orders prod',
      organizationId: ORG,
      clusterStatus: 'running',
      scrape: 'full',
      version: '25.6',
      observed: true,
    });
  });

  it('gives a streaming pipe its name, source, state and every counter and gauge', () => {
    expect(reading.pipes.find((p) => p.pipeId === KAFKA_PIPE)).toEqual({
      pipeId: KAFKA_PIPE,
      name: 'orders kafka',
      source: 'confluent',
      state: 'Running',
      fetchedEvents: 4412907,
      sentEvents: 4411530,
      fetchedBytes: 702113456,
      sentBytes: 391022871,
      sentBytesCompressed: 97755717,
      fetchedBytesCompressed: 702113456,
      errors: 0,
      latencyMs: 275,
      replicaCpuUsage: 180,
      replicaCpuLimit: 500,
      replicaMemoryUsage: 429496729,
      replicaMemoryLimit: 1073741824,
    });
  });

  it('gives a database pipe its batch ids, initial load, lag and events per table', () => {
    expect(reading.pipes.find((p) => p.pipeId === PG_PIPE)).toEqual({
      pipeId: PG_PIPE,
      name: 'users cdc',
      source: 'postgres',
      state: 'Running',
      fetchedBytesCompressed: 5120000,
      errors: 3,
      fetchedBytesInitialLoad: 268435456,
      lastFetchedBatchId: 1807,
      lastSentBatchId: 1806,
      sourceReplicationLatencyMiB: 1.5,
      eventsPerTable: [
        { table: 'users', eventType: 'insert', events: 120 },
        { table: 'users', eventType: 'update', events: 30 },
      ],
    });
  });

  it('keeps the service-wide CDC gauges apart from any pipe, and ignores unknown metrics', () => {
    expect(reading.cdc).toEqual({ cpuUsage: 640, cpuLimit: 2000 });
    expect(reading.pipes).toHaveLength(2);
  });

  it('is the shape its schema describes (so a stored reading reads back)', () => {
    expect(serviceReading.parse(JSON.parse(JSON.stringify(reading)))).toEqual(reading);
  });
});

describe('services whose pipes were not observed', () => {
  it('an idle service answers only its service-info metric: status idle, not observed, no pipes', () => {
    expect(read(IDLE)).toEqual({
      serviceId: SERVICE,
      serviceName: 'orders prod',
      organizationId: ORG,
      clusterStatus: 'idle',
      scrape: 'full',
      version: '25.6',
      observed: false,
      pipes: [],
      cdc: {},
    });
  });

  it('a partial scrape is running but not observed', () => {
    expect(read(PARTIAL)).toMatchObject({
      clusterStatus: 'running',
      scrape: 'partial',
      observed: false,
    });
  });

  it('an empty answer is not observed and names nothing', () => {
    expect(read('')).toEqual({ serviceId: SERVICE, observed: false, pipes: [], cdc: {} });
  });

  it('pipe samples of a service marked partial still read, but the service is not observed', () => {
    const reading = read(PARTIAL + OLDER_STYLE);
    expect(reading.observed).toBe(false);
    expect(reading.pipes).toHaveLength(1);
  });
});

describe('labels and values', () => {
  it('reads the state from the older clickpipe_status label', () => {
    const reading = read(OLDER_STYLE);
    expect(reading.pipes).toEqual([
      {
        pipeId: KAFKA_PIPE,
        name: 'orders kafka',
        source: 'confluent',
        state: 'Running',
        sentEvents: 5500,
      },
    ]);
    // No service-info metric, yet pipe metrics came: the pipes were observed.
    expect(reading.observed).toBe(true);
  });

  it('matches names verbatim: another case or prefix is an unknown metric', () => {
    const reading = read(
      `clickpipes_sentevents_total{clickpipe_id="p"} 5\nClickPipes_SentEvents_Total2{clickpipe_id="p"} 6\n`,
    );
    expect(reading.pipes).toEqual([{ pipeId: 'p' }]);
  });

  it('reads NaN and infinite values as no reading', () => {
    const reading = read(
      'ClickPipes_Latency{clickpipe_id="p"} NaN\nClickPipes_SentEvents_Total{clickpipe_id="p"} +Inf\n',
    );
    expect(reading.pipes).toEqual([{ pipeId: 'p' }]);
  });

  it('adds up counter series of one pipe and keeps the largest gauge', () => {
    const reading = read(
      [
        'ClickPipes_SentEvents_Total{clickpipe_id="p",replica="0"} 5',
        'ClickPipes_SentEvents_Total{clickpipe_id="p",replica="1"} 7',
        'ClickPipes_Latency{clickpipe_id="p",replica="0"} 300',
        'ClickPipes_Latency{clickpipe_id="p",replica="1"} 900',
      ].join('\n'),
    );
    expect(reading.pipes).toEqual([{ pipeId: 'p', sentEvents: 12, latencyMs: 900 }]);
  });

  it('takes a pipe name with quotes, backslashes and newlines as written', () => {
    const reading = read(
      'ClickPipes_Info{clickpipe_id="p",clickpipe_name="a \\"b\\" \\\\ c\\nd"} 1',
    );
    expect(reading.pipes[0].name).toBe('a "b" \\ c\nd');
  });

  it('leaves out the samples of another service on a per-service answer', () => {
    expect(read(RUNNING, OTHER_SERVICE)).toEqual({
      serviceId: OTHER_SERVICE,
      observed: false,
      pipes: [],
      cdc: {},
    });
  });
});

describe('the organization-wide answer', () => {
  it('reads one reading per service, in order', () => {
    const readings = readOrganizationMetrics(parsePrometheusText(ORGANIZATION).samples);
    expect(readings.map((r) => [r.serviceId, r.clusterStatus, r.observed, r.pipes.length])).toEqual(
      [
        [SERVICE, 'running', true, 2],
        [OTHER_SERVICE, 'idle', false, 0],
      ],
    );
  });
});

describe('the response body schema', () => {
  it('parses and reads a text body', () => {
    const schema = metricsBody((samples) => readServiceMetrics(samples, SERVICE));
    expect(schema.parse(IDLE).clusterStatus).toBe('idle');
  });

  it('turns a malformed line into one issue naming the line', () => {
    const schema = metricsBody((samples) => samples.length);
    const result = schema.safeParse('ok 1\nbroken{ 2\n');
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual([
      'metrics text line 2, column 9: expected a label name or "}", found "2"',
    ]);
  });
});
