/**
 * What one pass decides for one service, pure: the service's own record (listed, failed or
 * idle) and, when its pipes were listed, each wanted pipe's next record, its notifications and
 * whether it gets an auto-restart attempt. The executor (watchdog.ts) writes and delivers it.
 */
import { pipeSourceKind, type Pipe } from '../schemas';
import { defined } from '../watch/settings';
import type { PipeNotice } from '../watch/subjects/pipe';
import { decide, type Observation } from './decide';
import { decideServiceHealth, type ListingOutcome, type ServiceHealthDecision } from './health';
import type { ServiceState } from './records';
import { planRestart } from './restart';
import type { PipeRecord } from './types';
import type { WatchdogConfig } from './watchdog-config';

export interface PipeStep {
  previous: PipeRecord | undefined;
  next: PipeRecord;
  notifications: PipeNotice[];
  /** Start the pipe once this step's notices are out (if its write won). */
  restart: boolean;
}

export interface ServicePlan {
  health: ServiceHealthDecision;
  pipes: PipeStep[];
  /** Pipes observed (the wanted ones of the listing). */
  checked: number;
  /** Pipes whose state moved since the last pass. */
  transitions: number;
}

/** The pipe's source member: a kind this client models, else the first member it carries. */
function sourceKindOf(pipe: Pipe): string | undefined {
  const known = pipeSourceKind(pipe);
  if (known !== 'unknown') return known;
  return Object.entries(pipe.source ?? {}).find(([, member]) => member != null)?.[0];
}

function wantedPipe(config: WatchdogConfig, pipeId: string): boolean {
  return (
    (!config.includePipes || config.includePipes.includes(pipeId)) &&
    !config.excludePipes.includes(pipeId)
  );
}

/**
 * @param listing the service's pipes, or why there are none
 * @param now when the listing answered (a paced pass can take a while)
 * @param runMarker the fan-out run that finishes the service (a redelivery skips it)
 */
export function planService(
  config: WatchdogConfig,
  serviceId: string,
  stored: ServiceState,
  listing: Pipe[] | ListingOutcome,
  now: number,
  runMarker?: string,
): ServicePlan {
  const health = decideServiceHealth(
    stored.service,
    Array.isArray(listing) ? { kind: 'listed' } : listing,
    now,
    {
      organizationId: config.organizationId,
      serviceId,
      selfWatchAfterFailures: config.selfWatchAfterFailures,
      runId: runMarker,
    },
  );
  if (!Array.isArray(listing)) return { health, pipes: [], checked: 0, transitions: 0 };

  const previous = new Map(stored.pipes.map((r) => [r.pipeId, r]));
  const pipes = listing.filter((p) => wantedPipe(config, p.id));
  const baseline = health.baseline && stored.pipes.length === 0;
  const steps = pipes.map((p) => pipeStep(config, previous.get(p.id), p, serviceId, now, baseline));
  const seen = new Set(pipes.map((p) => p.id));
  for (const record of previous.values()) {
    const unseen = !seen.has(record.pipeId) && wantedPipe(config, record.pipeId);
    // A gone pipe's record stays until its pending notices are out.
    if (unseen && (!record.gone || record.pending.length > 0))
      steps.push(pipeStep(config, record, undefined, serviceId, now, false));
  }
  const transitions = pipes.filter((p) => {
    const before = previous.get(p.id);
    return before !== undefined && before.state !== p.state;
  }).length;
  return { health, pipes: steps, checked: pipes.length, transitions };
}

function pipeStep(
  config: WatchdogConfig,
  previous: PipeRecord | undefined,
  pipe: Pipe | undefined,
  serviceId: string,
  now: number,
  baseline: boolean,
): PipeStep {
  const observed: Observation = pipe
    ? {
        organizationId: config.organizationId,
        serviceId,
        pipeId: pipe.id,
        pipeName: pipe.name,
        ...defined({ sourceKind: sourceKindOf(pipe) }),
        state: pipe.state,
        updatedAt: pipe.updatedAt,
      }
    : { gone: true };
  const decision = decide(previous, observed, now, config.policy, { baseline });
  if (!pipe || !config.autoRestart.enabled)
    return { previous, next: decision.next, notifications: decision.notifications, restart: false };
  const planned = planRestart(decision.next, pipe, now, config.autoRestart);
  return {
    previous,
    next: { ...decision.next, restarts: planned.restarts },
    notifications: [...decision.notifications, ...(planned.notice ? [planned.notice] : [])],
    restart: planned.notice !== undefined,
  };
}
