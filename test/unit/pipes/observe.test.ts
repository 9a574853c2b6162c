import { describe, expect, it } from 'vitest';
import {
  chooseSource,
  progressReadingOf,
  seenInListing,
  seenInMetrics,
  unobservedOutcome,
} from '../../../lib/pipes/observe';
import { pipeMatcher } from '../../../lib/pipes/patterns';
import { sourceKindOfLabel, sourceKindOfPipe } from '../../../lib/pipes/source-kind';
import type { PipeRecord, ServiceRecord } from '../../../lib/pipes/types';
import type { ServiceReading } from '../../../lib/schemas/metrics';
import { pipeRecord } from '../../support/pipe-record';

const T0 = Date.parse('2026-08-03T09:00:00Z');
const ids = { organizationId: 'org', serviceId: 'svc' };

const service = (extra: Partial<ServiceRecord> = {}): ServiceRecord => ({
  ...ids,
  consecutiveFailures: 0,
  announced: false,
  idle: false,
  pending: [],
  version: 1,
  ...extra,
});

const stored = (pipeId: string, extra: Partial<PipeRecord> = {}): PipeRecord =>
  pipeRecord(T0, { ...ids, pipeId, pipeName: `name-${pipeId}`, ...extra });

const reading = (pipes: ServiceReading['pipes'], extra: Partial<ServiceReading> = {}) =>
  ({
    serviceId: 'svc',
    clusterStatus: 'running',
    scrape: 'full',
    observed: true,
    pipes,
    cdc: {},
    ...extra,
  }) satisfies ServiceReading;

describe('which one request a run makes', () => {
  it.each<[string, ServiceRecord | undefined, ReturnType<typeof chooseSource>]>([
    ['a service never seen: its metrics', undefined, 'metrics'],
    ['a service read through its metrics: again', service(), 'metrics'],
    ['the metrics lacked something: the listing, once', service({ listingDue: 'x' }), 'listing'],
    [
      'the endpoint not served: the listing until the retry',
      service({ metricsUnservedUntil: T0 + 1 }),
      'listing',
    ],
    [
      'the retry time has come: the metrics again',
      service({ metricsUnservedUntil: T0 }),
      'metrics',
    ],
  ])('%s', (_name, record, source) => {
    expect(chooseSource(record, T0)).toBe(source);
  });
});

describe('the pipes a metrics answer shows', () => {
  it('reads state, name, source kind and the counters of each pipe', () => {
    const seen = seenInMetrics(
      reading([
        {
          pipeId: 'k',
          name: 'orders',
          source: 'confluent',
          state: 'Running',
          sentEvents: 10,
          fetchedEvents: 12,
          errors: 1,
        },
        {
          pipeId: 'pg',
          name: 'cdc',
          source: 'postgres',
          state: 'Running',
          lastSentBatchId: 4,
          lastFetchedBatchId: 5,
        },
      ]),
      [],
      ids,
      T0,
    );
    expect(seen).toEqual({
      absentMeansGone: false,
      pipes: [
        {
          ...ids,
          pipeId: 'k',
          pipeName: 'orders',
          state: 'Running',
          sourceKind: 'kafka',
          reading: { at: T0, counter: 'events', sent: 10, fetched: 12, errors: 1 },
        },
        {
          ...ids,
          pipeId: 'pg',
          pipeName: 'cdc',
          state: 'Running',
          sourceKind: 'postgres',
          reading: { at: T0, counter: 'batches', sent: 4, fetched: 5 },
        },
      ],
    });
  });

  it('a pipe without its state keeps the stored one; never stored, the next run lists', () => {
    const seen = seenInMetrics(
      reading([{ pipeId: 'a' }, { pipeId: 'b', sentEvents: 3 }]),
      [stored('a', { state: 'Stopped' })],
      ids,
      T0,
    );
    expect(seen.pipes.map((p) => [p.pipeId, p.state, p.pipeName])).toEqual([
      ['a', 'Stopped', 'name-a'],
    ]);
    expect(seen.listingDue).toBe('pipe b has no state in the metrics');
  });

  it('a stored pipe missing from the metrics is not told gone: the next run lists', () => {
    const seen = seenInMetrics(reading([]), [stored('a'), stored('old', { gone: true })], ids, T0);
    expect(seen).toEqual({
      pipes: [],
      absentMeansGone: false,
      listingDue: 'pipe a is missing from the metrics',
    });
  });

  it('a listing tells gone by absence and reads the source member', () => {
    const seen = seenInListing(
      [{ id: 'x', name: 'clicks', state: 'Failed', source: { kinesis: { streamName: 's' } } }],
      ids,
    );
    expect(seen).toEqual({
      absentMeansGone: true,
      pipes: [
        {
          ...ids,
          pipeId: 'x',
          pipeName: 'clicks',
          state: 'Failed',
          updatedAt: undefined,
          sourceKind: 'kinesis',
        },
      ],
    });
  });

  it.each<[string, Partial<ServiceReading>, string, string | undefined]>([
    ['idle: idle, nothing woken', { clusterStatus: 'idle' }, 'idle', undefined],
    ['a partial scrape: not observed this run', { scrape: 'partial' }, 'unobserved', undefined],
    ['a stopped service: not observed', { clusterStatus: 'stopped' }, 'unobserved', undefined],
    [
      'running, full scrape, no pipe metric: the next run lists (pipes may be gone)',
      {},
      'unobserved',
      'the metrics carried no pipe metric',
    ],
  ])('an answer with only the service-info metric, %s', (_name, extra, kind, listingDue) => {
    const outcome = unobservedOutcome(reading([], { observed: false, ...extra }));
    expect(outcome.outcome.kind).toBe(kind);
    expect(outcome.listingDue).toBe(listingDue);
  });

  it('a pipe of unknown kind is read by whichever sent counter it has', () => {
    expect(progressReadingOf({ pipeId: 'p', lastSentBatchId: 3 }, undefined, T0)).toEqual({
      at: T0,
      counter: 'batches',
      sent: 3,
    });
    expect(progressReadingOf({ pipeId: 'p' }, 'kafka', T0)).toEqual({ at: T0, counter: 'events' });
  });
});

describe('source kinds and pipe patterns', () => {
  it.each([
    ['s3', 'objectStorage'],
    ['GCS', 'objectStorage'],
    ['confluent', 'kafka'],
    ['kafka', 'kafka'],
    ['MySQL', 'mysql'],
    ['postgres', 'postgres'],
    ['something-new', 'something-new'],
  ])('clickpipe_source %s is %s', (label, kind) => {
    expect(sourceKindOfLabel(label)).toBe(kind);
  });

  it('a listed pipe is of the member its source holds', () => {
    expect(sourceKindOfPipe({ source: { mysql: { host: 'h' } } })).toBe('mysql');
    expect(sourceKindOfPipe({ source: {} })).toBeUndefined();
  });

  it('matches ids, names and name globs; nothing else', () => {
    const matches = pipeMatcher(['p-1', 'billing', 'orders-*', 'eu-?']);
    const pipe = (pipeId: string, pipeName: string) => matches({ pipeId, pipeName });
    expect(pipe('p-1', 'x')).toBe(true);
    expect(pipe('p-2', 'billing')).toBe(true);
    expect(pipe('p-3', 'orders-kafka')).toBe(true);
    expect(pipe('p-4', 'eu-1')).toBe(true);
    expect(pipe('p-5', 'eu-12')).toBe(false);
    expect(pipe('p-6', 'my-orders-kafka')).toBe(false);
    expect(pipeMatcher(['a.b'])({ pipeId: 'x', pipeName: 'aXb' })).toBe(false);
    expect(pipeMatcher([])({ pipeId: 'x', pipeName: 'y' })).toBe(false);
  });
});
