/**
 * What one pass decides for one service, pure: the service's own record (observed, failed, idle
 * or not observed; which request the next run makes) and, when its pipes were observed, each
 * wanted pipe's next record (state and progress), its notifications and whether it gets an
 * auto-restart attempt. The executor (watchdog.ts) writes and delivers it.
 */
import type { PipeNotice } from '../watch/subjects/pipe';
import { decide, type Observation } from './decide';
import { decideServiceHealth, type ListingOutcome, type ServiceHealthDecision } from './health';
import {
  seenInListing,
  seenInMetrics,
  unobservedOutcome,
  type SeenPipes,
  type ServiceObservation,
} from './observe';
import { decideProgress } from './progress';
import type { ServiceState } from './records';
import { planRestart } from './restart';
import type { ObservedPipe, PipeRecord, ServiceRecord } from './types';
import type { WatchdogConfig } from './watchdog-config';

export interface PipeStep {
  previous: PipeRecord | undefined;
  next: PipeRecord;
  notifications: PipeNotice[];
  /** Start the pipe once this step's notices are out (if its write won). */
  restart: boolean;
}

export interface ServicePlan {
  /** How the service's answer went: its pipes observed, or failed, idle, not observed. */
  outcome: ListingOutcome['kind'];
  health: ServiceHealthDecision;
  pipes: PipeStep[];
  /** Pipes observed (the wanted ones of the answer). */
  checked: number;
  /** Pipes whose state moved since the last pass. */
  transitions: number;
}

function wantedPipe(config: WatchdogConfig, pipeId: string): boolean {
  return (
    (!config.includePipes || config.includePipes.includes(pipeId)) &&
    !config.excludePipes.includes(pipeId)
  );
}

/** The pipes an answer shows, or why it shows none (and whether the next run must list). */
function seeing(
  observation: ServiceObservation,
  stored: readonly PipeRecord[],
  ids: { organizationId: string; serviceId: string },
  now: number,
): { outcome: ListingOutcome; seen?: SeenPipes; listingDue?: string } {
  if ('kind' in observation) return { outcome: observation };
  if (observation.via === 'listing')
    return { outcome: { kind: 'listed' }, seen: seenInListing(observation.pipes, ids) };
  if (!observation.reading.observed) return unobservedOutcome(observation.reading);
  const seen = seenInMetrics(observation.reading, stored, ids, now);
  return { outcome: { kind: 'listed' }, seen, listingDue: seen.listingDue };
}

/** The service record's note of which request the next run makes. */
function nextSource(
  record: ServiceRecord,
  observation: ServiceObservation,
  listingDue: string | undefined,
  now: number,
  metricsRetryMs: number,
): ServiceRecord {
  const { listingDue: _done, metricsUnservedUntil, ...rest } = record;
  if ('kind' in observation) return { ...record, ...(listingDue ? { listingDue } : {}) };
  if (observation.via === 'metrics') return { ...rest, ...(listingDue ? { listingDue } : {}) };
  const until = observation.metricsUnserved ? now + metricsRetryMs : metricsUnservedUntil;
  return { ...rest, ...(until !== undefined ? { metricsUnservedUntil: until } : {}) };
}

/**
 * @param observation the service's metrics or pipes listing, or why there are none
 * @param now when the answer came (a paced pass can take a while)
 * @param runMarker the fan-out run that finishes the service (a redelivery skips it)
 */
export function planService(
  config: WatchdogConfig,
  serviceId: string,
  stored: ServiceState,
  observation: ServiceObservation,
  now: number,
  runMarker?: string,
): ServicePlan {
  const ids = { organizationId: config.organizationId, serviceId };
  const wantedStored = stored.pipes.filter((r) => wantedPipe(config, r.pipeId));
  const { outcome, seen, listingDue } = seeing(observation, wantedStored, ids, now);
  const health = decideServiceHealth(stored.service, outcome, now, {
    ...ids,
    selfWatchAfterFailures: config.selfWatchAfterFailures,
    runId: runMarker,
  });
  health.next = nextSource(health.next, observation, listingDue, now, config.metricsRetryMs);
  if (!seen) return { outcome: outcome.kind, health, pipes: [], checked: 0, transitions: 0 };

  const previous = new Map(wantedStored.map((r) => [r.pipeId, r]));
  const pipes = seen.pipes.filter((p) => wantedPipe(config, p.pipeId));
  const context: StepContext = {
    baseline: health.baseline && stored.pipes.length === 0,
    // Nothing moved while the service was idle: progress clocks start over.
    restartClocks: stored.service?.idle === true,
  };
  const steps = pipes.map((p) => pipeStep(config, previous.get(p.pipeId), p, now, context));
  const seenIds = new Set(pipes.map((p) => p.pipeId));
  for (const record of previous.values()) {
    if (seenIds.has(record.pipeId)) continue;
    // A gone pipe's record stays until its pending notices are out; only a listing tells gone.
    const told = seen.absentMeansGone && !record.gone;
    if (told || (record.gone && record.pending.length > 0))
      steps.push(pipeStep(config, record, undefined, now, { ...context, baseline: false }));
    // Missing from the metrics: a miss that counts toward gone, which the next listing decides.
    else if (!record.gone) steps.push(missedStep(record));
  }
  const transitions = pipes.filter((p) => {
    const before = previous.get(p.pipeId);
    return before !== undefined && !before.gone && before.state !== p.state;
  }).length;
  return { outcome: outcome.kind, health, pipes: steps, checked: pipes.length, transitions };
}

/** A stored pipe this run's metrics lacked: counted, nothing told. */
function missedStep(record: PipeRecord): PipeStep {
  const next = { ...record, missedRuns: record.missedRuns + 1 };
  return { previous: record, next, notifications: [], restart: false };
}

interface StepContext {
  baseline: boolean;
  restartClocks: boolean;
}

function pipeStep(
  config: WatchdogConfig,
  previous: PipeRecord | undefined,
  pipe: ObservedPipe | undefined,
  now: number,
  context: StepContext,
): PipeStep {
  const observed: Observation = pipe ?? { gone: true };
  const decision = decide(previous, observed, now, config.policy, { baseline: context.baseline });
  let next = decision.next;
  const notifications = [...decision.notifications];
  if (pipe?.reading) {
    const progress = decideProgress(next, pipe.reading, config.progress, config.policy, {
      restart: context.restartClocks,
    });
    next = { ...next, progress: progress.progress };
    notifications.push(...progress.notifications);
  }
  if (!pipe || !config.autoRestart.enabled)
    return { previous, next, notifications, restart: false };
  const planned = planRestart(next, pipe, now, config.autoRestart);
  return {
    previous,
    next: { ...next, restarts: planned.restarts },
    notifications: [...notifications, ...(planned.notice ? [planned.notice] : [])],
    restart: planned.notice !== undefined,
  };
}
