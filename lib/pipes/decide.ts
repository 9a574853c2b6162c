/**
 * The pure heart of the watchdog: given what was stored for a pipe and what was observed now,
 * decide the next record and what (if anything) to tell people. No I/O, no clock of its own.
 */
import * as z from 'zod';
import { CloudOpsError } from '../errors';
import { parseOrThrow } from '../format-issues';
import { classifyOptionsSchema, classifyState, type Severity } from './classify';
import type { NotificationKind, ObservedPipe, PipeNotification, PipeRecord } from './types';

export const policySchema = classifyOptionsSchema.extend({
  /** While a pipe stays bad, remind after this long without a notice. */
  reminderIntervalMs: z
    .number()
    .int()
    .positive()
    .default(4 * 3_600_000),
  /** More than this many state changes inside `flapWindowMs` is flapping. */
  flapMaxChanges: z.number().int().positive().default(3),
  flapWindowMs: z
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
  /** A flapping pipe is stable again after this long without a change. */
  flapStableMs: z
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
  /** Announce pipes seen for the first time. */
  announceNew: z.boolean().default(true),
  /** A gone pipe's record is kept this long (DynamoDB TTL), then forgotten. */
  goneRetentionMs: z
    .number()
    .int()
    .positive()
    .default(30 * 86_400_000),
});
export type WatchdogPolicyInput = z.input<typeof policySchema>;
export type WatchdogPolicy = z.output<typeof policySchema>;

export function parsePolicy(input: WatchdogPolicyInput = {}): WatchdogPolicy {
  return parseOrThrow(policySchema, input, 'watchdog policy', 'invalid watchdog policy');
}

/** `gone`: the pipe was stored before but is absent from its service's listing. */
export type Observation = ObservedPipe | { gone: true };

export interface Decision {
  /** The record to store (without pending deliveries or version changes: the caller owns those). */
  next: PipeRecord;
  notifications: PipeNotification[];
}

const iso = (ms: number) => new Date(ms).toISOString();

function notify(
  record: Pick<PipeRecord, 'organizationId' | 'serviceId' | 'pipeId' | 'pipeName'>,
  fields: {
    kind: NotificationKind;
    severity: Severity;
    from: string;
    to: string;
    since: number;
    message: string;
  },
  now: number,
): PipeNotification {
  return {
    id: `${record.organizationId}/${record.serviceId}/${record.pipeId}/${fields.kind}/${now}`,
    organizationId: record.organizationId,
    serviceId: record.serviceId,
    pipeId: record.pipeId,
    pipeName: record.pipeName,
    kind: fields.kind,
    severity: fields.severity,
    from: fields.from,
    to: fields.to,
    at: iso(now),
    since: iso(fields.since),
    message: fields.message,
  };
}

/** When a pipe seen for the first time entered its state: its updatedAt, if plausible. */
function entered(updatedAt: string | undefined, now: number): number {
  const at = updatedAt === undefined ? NaN : Date.parse(updatedAt);
  return Number.isFinite(at) && at <= now ? at : now;
}

function firstSight(
  observed: ObservedPipe,
  now: number,
  policy: WatchdogPolicy,
  baseline: boolean,
): Decision {
  const { updatedAt, ...pipe } = observed;
  const c = classifyState(pipe.state, pipe.pipeId, policy);
  const since = entered(updatedAt, now);
  const next: PipeRecord = {
    ...pipe,
    since,
    lastSeenAt: now,
    changes: [],
    flapping: false,
    stuckNotified: false,
    gone: false,
    restarts: [],
    pending: [],
    version: 0,
  };
  const problem = c.severity !== undefined;
  if (problem) {
    next.announced = {
      kind: c.category === 'unknown' ? 'unknown' : 'new',
      state: pipe.state,
      severity: c.severity!,
      since,
    };
    if (c.category === 'unknown') next.unknownNotified = pipe.state;
  }
  // A baseline (the service's first listing) records healthy pipes silently; problems are told.
  if ((baseline || !policy.announceNew) && !problem) return { next, notifications: [] };
  next.lastNotifiedAt = now;
  const what = c.category === 'unknown' ? `an unknown state "${pipe.state}"` : pipe.state;
  return {
    next,
    notifications: [
      notify(
        next,
        {
          kind: 'new',
          severity: c.severity ?? 'info',
          from: '',
          to: pipe.state,
          since,
          message: `New pipe ${pipe.pipeName} found in ${what}`,
        },
        now,
      ),
    ],
  };
}

export interface DecideContext {
  /** The service is listed for the first time: healthy new pipes are recorded silently. */
  baseline?: boolean;
}

/** Decide the next record and the notifications for one pipe. */
export function decide(
  previous: PipeRecord | undefined,
  observed: Observation,
  now: number,
  policy: WatchdogPolicy,
  context: DecideContext = {},
): Decision {
  if ('gone' in observed) {
    if (!previous) throw new CloudOpsError('a gone pipe needs its stored record');
    if (previous.gone) return { next: previous, notifications: [] };
    const next: PipeRecord = {
      ...previous,
      gone: true,
      announced: undefined,
      lastNotifiedAt: now,
      expiresAt: Math.floor((now + policy.goneRetentionMs) / 1000),
    };
    return {
      next,
      notifications: [
        notify(
          next,
          {
            kind: 'gone',
            severity: 'warning',
            from: previous.state,
            to: '',
            since: previous.since,
            message: `Pipe ${previous.pipeName} is gone (last state ${previous.state})`,
          },
          now,
        ),
      ],
    };
  }
  if (!previous || previous.gone)
    return firstSight(observed, now, policy, !previous && context.baseline === true);

  const base: PipeRecord = { ...previous, pipeName: observed.pipeName, lastSeenAt: now };
  return observed.state === previous.state
    ? unchanged(base, now, policy)
    : changed(base, observed.state, now, policy);
}

/** Same state as last run: stuck, reminder, or the end of a flapping episode. */
function unchanged(record: PipeRecord, now: number, policy: WatchdogPolicy): Decision {
  const c = classifyState(record.state, record.pipeId, policy);
  const say = (fields: Parameters<typeof notify>[1], next: PipeRecord): Decision => ({
    next: { ...next, lastNotifiedAt: now },
    notifications: [notify(next, fields, now)],
  });

  if (record.flapping) {
    const lastChange = record.changes.at(-1) ?? record.since;
    if (now - lastChange < policy.flapStableMs) return { next: record, notifications: [] };
    const next: PipeRecord = { ...record, flapping: false, changes: [] };
    if (c.severity === undefined && c.category !== 'transitional') {
      return say(
        {
          kind: 'recovery',
          severity: 'info',
          from: record.announced?.state ?? record.state,
          to: record.state,
          since: record.since,
          message: `Pipe ${record.pipeName} stopped flapping and is ${record.state}`,
        },
        { ...next, announced: undefined },
      );
    }
    const severity = c.severity ?? 'warning';
    return say(
      {
        kind: 'transition',
        severity,
        from: record.announced?.state ?? record.state,
        to: record.state,
        since: record.since,
        message: `Pipe ${record.pipeName} stopped flapping and stays ${record.state}`,
      },
      {
        ...next,
        announced: { kind: 'transition', state: record.state, severity, since: record.since },
      },
    );
  }

  if (
    c.category === 'transitional' &&
    !record.stuckNotified &&
    now - record.since > policy.stuckAfterMs
  ) {
    const minutes = Math.round((now - record.since) / 60_000);
    return say(
      {
        kind: 'stuck',
        severity: 'warning',
        from: record.state,
        to: record.state,
        since: record.since,
        message: `Pipe ${record.pipeName} has been ${record.state} for ${minutes} min`,
      },
      {
        ...record,
        stuckNotified: true,
        announced: { kind: 'stuck', state: record.state, severity: 'warning', since: record.since },
      },
    );
  }

  const problem = record.announced;
  if (
    problem &&
    problem.kind !== 'unknown' &&
    now - (record.lastNotifiedAt ?? 0) >= policy.reminderIntervalMs
  ) {
    const hours = ((now - problem.since) / 3_600_000).toFixed(1);
    return say(
      {
        kind: 'reminder',
        severity: problem.severity,
        from: record.state,
        to: record.state,
        since: problem.since,
        message: `Pipe ${record.pipeName} is still ${record.state} (${hours} h)`,
      },
      record,
    );
  }
  return { next: record, notifications: [] };
}

/** A new state: flap damping first, then one notification for the transition (or none). */
function changed(record: PipeRecord, state: string, now: number, policy: WatchdogPolicy): Decision {
  const from = record.state;
  const changes = [...record.changes.filter((t) => now - t < policy.flapWindowMs), now];
  const next: PipeRecord = { ...record, state, since: now, changes, stuckNotified: false };
  const c = classifyState(state, record.pipeId, policy);
  const say = (
    kind: NotificationKind,
    severity: Severity,
    message: string,
    after: PipeRecord,
  ): Decision => ({
    next: { ...after, lastNotifiedAt: now },
    notifications: [notify(after, { kind, severity, from, to: state, since: now, message }, now)],
  });

  if (record.flapping) return { next, notifications: [] };
  if (changes.length > policy.flapMaxChanges) {
    const minutes = Math.round(policy.flapWindowMs / 60_000);
    return say(
      'flapping',
      'warning',
      `Pipe ${record.pipeName} is flapping: ${changes.length} state changes in ${minutes} min (now ${state}); quiet until stable`,
      {
        ...next,
        flapping: true,
        announced: { kind: 'flapping', state, severity: 'warning', since: now },
      },
    );
  }

  if (c.category === 'unknown') {
    if (record.unknownNotified === state) return { next, notifications: [] };
    return say(
      'unknown',
      'warning',
      `Pipe ${record.pipeName} reports an unknown state "${state}" (was ${from})`,
      {
        ...next,
        unknownNotified: state,
        announced: { kind: 'unknown', state, severity: 'warning', since: now },
      },
    );
  }
  if (c.severity !== undefined) {
    return say('transition', c.severity, `Pipe ${record.pipeName} went from ${from} to ${state}`, {
      ...next,
      announced: { kind: 'transition', state, severity: c.severity, since: now },
    });
  }
  // Healthy (or an expected stop): a recovery only when a problem was announced.
  if (c.category !== 'transitional' && record.announced) {
    return say('recovery', 'info', `Pipe ${record.pipeName} recovered: ${from} -> ${state}`, {
      ...next,
      announced: undefined,
    });
  }
  // A transitional state starts the stuck clock; an announced problem stays open until healthy.
  return { next, notifications: [] };
}
