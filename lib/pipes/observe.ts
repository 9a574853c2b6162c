/**
 * Which one request a run makes for a service, and what the answer says of its pipes, pure.
 *
 * A run reads the service's metrics endpoint: every pipe's state, name and source AND its
 * progress counters, in one request. It lists the pipes instead only for what the metrics lack:
 * - the endpoint is not served (an HTML 404: the spec's snapshot, a gateway without it): that run
 *   lists at once (its one second request), and the next runs list until `metricsRetryMs` passed;
 * - a stored pipe missing from the metrics: only a listing may tell it gone, so the next run lists;
 * - a pipe whose metrics carry no state and that was never listed: the next run lists;
 * - a running service whose full answer carries no pipe metric at all: the next run lists.
 * So a run costs S requests for S services, never both calls every run.
 */
import { UnexpectedResponseError } from '../api/errors';
import type { Pipe } from '../schemas';
import type { PipeReading, ServiceReading } from '../schemas/metrics';
import type { ListingOutcome } from './health';
import type { ProgressReading } from './progress-record';
import { isDatabaseSource, sourceKindOfLabel, sourceKindOfPipe } from './source-kind';
import type { ObservedPipe, PipeRecord, ServiceRecord } from './types';

export type ObservationSource = 'metrics' | 'listing';

/** This run's request for a service. */
export function chooseSource(service: ServiceRecord | undefined, now: number): ObservationSource {
  if (service?.listingDue) return 'listing';
  const unserved = service?.metricsUnservedUntil;
  return unserved !== undefined && now < unserved ? 'listing' : 'metrics';
}

/** The gateway's HTML 404 for a path it does not serve: no metrics endpoint (the spec's snapshot). */
export function metricsUnserved(error: unknown): boolean {
  return error instanceof UnexpectedResponseError && error.status === 404;
}

/** What one run learnt of a service. */
export type ServiceObservation =
  | {
      via: 'listing';
      pipes: Pipe[];
      /** This run asked the metrics first and the endpoint was not served. */
      metricsUnserved?: boolean;
    }
  | { via: 'metrics'; reading: ServiceReading }
  | Exclude<ListingOutcome, { kind: 'listed' }>;

/** What the plan makes of an observation: the pipes seen, and what the next run must list for. */
export interface SeenPipes {
  pipes: ObservedPipe[];
  /** A stored pipe absent from this answer is told gone (a listing), or left for a listing. */
  absentMeansGone: boolean;
  /** Set when the next run must list the pipes: what these metrics lacked. */
  listingDue?: string;
}

interface ServiceIds {
  organizationId: string;
  serviceId: string;
}

export function seenInListing(pipes: readonly Pipe[], ids: ServiceIds): SeenPipes {
  return {
    pipes: pipes.map((p) => ({
      ...ids,
      pipeId: p.id,
      pipeName: p.name,
      state: p.state,
      updatedAt: p.updatedAt,
      sourceKind: sourceKindOfPipe(p),
    })),
    absentMeansGone: true,
  };
}

/**
 * The pipes of an observed metrics answer. A pipe without its state keeps its stored one; one
 * never stored is left to the next run's listing, as is a stored pipe the answer lacks.
 */
export function seenInMetrics(
  reading: ServiceReading,
  stored: readonly PipeRecord[],
  ids: ServiceIds,
  at: number,
): SeenPipes {
  const byId = new Map(stored.map((r) => [r.pipeId, r]));
  const pipes: ObservedPipe[] = [];
  const lacking: string[] = [];
  for (const p of reading.pipes) {
    const before = byId.get(p.pipeId);
    const state = p.state ?? (before?.gone ? undefined : before?.state);
    if (state === undefined) {
      lacking.push(`pipe ${p.pipeId} has no state in the metrics`);
      continue;
    }
    const sourceKind = sourceKindOfLabel(p.source) ?? before?.sourceKind;
    pipes.push({
      ...ids,
      pipeId: p.pipeId,
      pipeName: p.name ?? before?.pipeName ?? p.pipeId,
      state,
      ...(sourceKind ? { sourceKind } : {}),
      reading: progressReadingOf(p, sourceKind, at),
    });
  }
  const inMetrics = new Set(reading.pipes.map((p) => p.pipeId));
  for (const r of stored)
    if (!r.gone && !inMetrics.has(r.pipeId))
      lacking.push(`pipe ${r.pipeId} is missing from the metrics`);
  return { pipes, absentMeansGone: false, ...(lacking.length ? { listingDue: lacking[0] } : {}) };
}

/** The counters progress is read from: batch ids for a database pipe, events for the others. */
export function progressReadingOf(
  p: PipeReading,
  sourceKind: string | undefined,
  at: number,
): ProgressReading {
  const batches =
    isDatabaseSource(sourceKind) || (p.sentEvents === undefined && p.lastSentBatchId !== undefined);
  const reading: ProgressReading = { at, counter: batches ? 'batches' : 'events' };
  const sent = batches ? p.lastSentBatchId : p.sentEvents;
  const fetched = batches ? p.lastFetchedBatchId : p.fetchedEvents;
  if (sent !== undefined) reading.sent = sent;
  if (fetched !== undefined) reading.fetched = fetched;
  if (p.errors !== undefined) reading.errors = p.errors;
  return reading;
}

/**
 * A metrics answer that observed nothing (only the service-info metric): idle, or not observed
 * this run (a partial scrape), never "no pipes" or "stopped". A running service with a full
 * scrape and no pipe metric may have lost its pipes: the next run lists to know.
 */
export function unobservedOutcome(reading: ServiceReading): {
  outcome: Exclude<ListingOutcome, { kind: 'listed' }>;
  listingDue?: string;
} {
  const status = reading.clusterStatus ?? 'unknown';
  if (status === 'idle')
    return { outcome: { kind: 'idle', message: 'the metrics say the service is idle' } };
  const message = `the metrics observed no pipe (service ${status}, scrape ${reading.scrape ?? 'unknown'})`;
  const empty = status === 'running' && reading.scrape !== 'partial';
  return {
    outcome: { kind: 'unobserved', message },
    ...(empty ? { listingDue: 'the metrics carried no pipe metric' } : {}),
  };
}
