/**
 * The watchdog's view of a service (pure, beside `decide()` for pipes): could its pipes be
 * listed, is it idle, is this the first listing (a silent baseline)? No I/O, no clock.
 */
import { serviceDedupKey, type ServiceNotice } from '../watch/subjects/service';
import type { ServiceRecord } from './types';

/** How the one listing of a service went. */
export type ListingOutcome =
  | { kind: 'listed' }
  /** The request failed (after the client's retries). */
  | { kind: 'failed'; message: string }
  /** 424: the service is idle (scaled to zero); its pipes cannot be read without waking it. */
  | { kind: 'idle'; message: string }
  /** The answer said nothing of the pipes (a partial metrics scrape): neither failed nor idle. */
  | { kind: 'unobserved'; message: string };

interface ServiceHealthOptions {
  organizationId: string;
  serviceId: string;
  /** Announce a failure streak after this many consecutive failed runs. */
  selfWatchAfterFailures: number;
  /** Fan-out run id recorded once the service is done (a redelivered message skips it). */
  runId?: string;
}

export interface ServiceHealthDecision {
  /** The record to store (pending deliveries and version are the caller's). */
  next: ServiceRecord;
  notifications: ServiceNotice[];
  /** First successful listing of this service: new healthy pipes are recorded silently. */
  baseline: boolean;
}

function say(
  o: ServiceHealthOptions,
  now: number,
  kind: ServiceNotice['kind'],
  severity: ServiceNotice['severity'],
  message: string,
  to = '',
): ServiceNotice {
  const at = new Date(now).toISOString();
  const ids = { organizationId: o.organizationId, serviceId: o.serviceId };
  return {
    subject: 'service',
    id: `${o.organizationId}/${o.serviceId}/-/${kind}/${now}`,
    dedupKey: serviceDedupKey(ids, kind),
    resolves: kind === 'recovery' || kind === 'active',
    kind,
    severity,
    ...ids,
    from: '',
    to,
    at,
    since: at,
    message,
  };
}

export function decideServiceHealth(
  previous: ServiceRecord | undefined,
  outcome: ListingOutcome,
  now: number,
  o: ServiceHealthOptions,
): ServiceHealthDecision {
  const base: ServiceRecord = previous ?? {
    organizationId: o.organizationId,
    serviceId: o.serviceId,
    consecutiveFailures: 0,
    announced: false,
    idle: false,
    pending: [],
    version: -1,
  };
  const marked = o.runId === undefined ? base : { ...base, lastRunId: o.runId };
  const notifications: ServiceNotice[] = [];

  if (outcome.kind === 'failed') {
    const failures = base.consecutiveFailures + 1;
    const announce = failures >= o.selfWatchAfterFailures && !base.announced;
    if (announce) {
      notifications.push(
        say(
          o,
          now,
          'watchdog',
          'critical',
          `The watchdog could not list the pipes of service ${o.serviceId} in ${failures} consecutive runs: ${outcome.message}`,
        ),
      );
    }
    return {
      next: {
        ...marked,
        consecutiveFailures: failures,
        lastError: outcome.message,
        announced: base.announced || announce,
      },
      notifications,
      baseline: false,
    };
  }

  if (outcome.kind === 'unobserved') return { next: marked, notifications: [], baseline: false };

  if (outcome.kind === 'idle') {
    // Information, not an alarm: idle is the service's default scaling; nothing is woken.
    if (!base.idle) {
      notifications.push(
        say(
          o,
          now,
          'idle',
          'info',
          `Service ${o.serviceId} is idle; its pipes are not checked until it is active again`,
          'idle',
        ),
      );
    }
    return { next: { ...marked, idle: true }, notifications, baseline: false };
  }

  if (base.idle) {
    notifications.push(
      say(
        o,
        now,
        'active',
        'info',
        `Service ${o.serviceId} is active again; its pipes are checked`,
        'active',
      ),
    );
  }
  if (base.announced) {
    notifications.push(
      say(
        o,
        now,
        'recovery',
        'info',
        `The watchdog can list the pipes of service ${o.serviceId} again`,
      ),
    );
  }
  return {
    next: {
      ...marked,
      consecutiveFailures: 0,
      lastError: undefined,
      announced: false,
      idle: false,
      baselineAt: base.baselineAt ?? now,
    },
    notifications,
    baseline: base.baselineAt === undefined,
  };
}
