/**
 * The pure heart of the watchdog: given what was stored for a pipe and what was observed now,
 * decide the next record and what (if anything) to tell people. The rules every condition
 * follows (reminders, flap damping, recovery) are lib/watch's; the pipe's own are here: its
 * state model, first sight, gone, stuck in a transitional state, an unknown state told once.
 * No I/O, no clock of its own.
 */
import * as z from 'zod/mini';
import { UNIT_MS } from '../duration';
import { safeInteger } from '../schemas/builders';
import { CloudOpsError } from '../errors';
import { parseOrThrow } from '../format-issues';
import {
  conditionPolicySchema,
  followCondition,
  tell,
  type ConditionKind,
  type Outcome,
  type Standing,
  type Told,
} from '../watch/condition';
import type { Severity } from '../watch/notice';
import { pipeDedupKey, type PipeNotice, type PipeNoticeKind } from '../watch/subjects/pipe';
import { classifyOptionsSchema, classifyState, type Classification } from './classify';
import type { ObservedPipe, PipeRecord } from './types';

export const policySchema = z.lazy(() =>
  z.extend(classifyOptionsSchema, {
    ...conditionPolicySchema.shape,
    /** Announce pipes seen for the first time. */
    announceNew: z._default(z.boolean(), true),
    /** A gone pipe's record is kept this long (DynamoDB TTL), then forgotten. */
    goneRetentionMs: z._default(z.number().check(safeInteger(), z.positive()), 30 * UNIT_MS.d),
  }),
);
type WatchdogPolicyInput = z.input<typeof policySchema>;
type WatchdogPolicy = z.output<typeof policySchema>;

export function parsePolicy(input: WatchdogPolicyInput = {}): WatchdogPolicy {
  return parseOrThrow(policySchema, input, 'watchdog policy', 'invalid watchdog policy');
}

/** `gone`: the pipe was stored before but is absent from its service's listing this run. */
export type Observation = ObservedPipe | { gone: true };

interface Decision {
  /** The record to store (without pending deliveries or version changes: the caller owns those). */
  next: PipeRecord;
  notifications: PipeNotice[];
}

const iso = (ms: number) => new Date(ms).toISOString();

type PipeIds = Pick<
  PipeRecord,
  'organizationId' | 'serviceId' | 'pipeId' | 'pipeName' | 'sourceKind'
>;
type Problem = { state: string; severity: Severity; since: number };

/** A pipe's notice; `extra` overrides (another condition's dedup key) and adds optional fields. */
export function notice(
  record: PipeIds,
  fields: Told<PipeNoticeKind> & { message: string },
  now: number,
  extra: Partial<PipeNotice> = {},
): PipeNotice {
  const ids = {
    organizationId: record.organizationId,
    serviceId: record.serviceId,
    pipeId: record.pipeId,
  };
  return {
    subject: 'pipe',
    id: `${ids.organizationId}/${ids.serviceId}/${ids.pipeId}/${fields.kind}/${now}`,
    dedupKey: pipeDedupKey(ids, fields.kind),
    resolves: fields.kind === 'recovery',
    ...ids,
    pipeName: record.pipeName,
    ...(record.sourceKind ? { sourceKind: record.sourceKind } : {}),
    kind: fields.kind,
    severity: fields.severity,
    from: fields.from,
    to: fields.to,
    at: iso(now),
    since: iso(fields.since),
    message: fields.message,
    ...extra,
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
  const { updatedAt, reading: _progress, ...pipe } = observed;
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
    missedRuns: 0,
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
  const told: Told<PipeNoticeKind> = {
    kind: 'new',
    severity: c.severity ?? 'info',
    from: '',
    to: pipe.state,
    since,
  };
  const message = `New pipe ${pipe.pipeName} found in ${what}`;
  return { next, notifications: [notice(next, { ...told, message }, now)] };
}

/**
 * Runs a pipe must be missing from, in a row, to be told gone (the last one a listing). One
 * answer without it may be a blip (a pipe back the next run would otherwise be told gone, then
 * new); a second run costs no request, where a GET of the pipe would add one per missing pipe.
 */
const MISSED_RUNS_BEFORE_GONE = 2;

function gone(previous: PipeRecord, now: number, policy: WatchdogPolicy): Decision {
  if (previous.gone) return { next: previous, notifications: [] };
  const missedRuns = previous.missedRuns + 1;
  if (missedRuns < MISSED_RUNS_BEFORE_GONE)
    return { next: { ...previous, missedRuns }, notifications: [] };
  const next: PipeRecord = {
    ...previous,
    missedRuns,
    gone: true,
    announced: undefined,
    lastNotifiedAt: now,
    expiresAt: Math.floor((now + policy.goneRetentionMs) / 1000),
  };
  const told: Told<PipeNoticeKind> = {
    kind: 'gone',
    severity: 'warning',
    from: previous.state,
    to: '',
    since: previous.since,
  };
  const message = `Pipe ${previous.pipeName} is gone (last state ${previous.state})`;
  return { next, notifications: [notice(next, { ...told, message }, now)] };
}

interface DecideContext {
  /** The service is listed for the first time: healthy new pipes are recorded silently. */
  baseline?: boolean;
}

/** How a pipe state stands for the common rules. */
function standingOf(c: Classification): Standing {
  return c.severity ?? (c.category === 'transitional' ? 'transitional' : 'healthy');
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
    return gone(previous, now, policy);
  }
  if (!previous || previous.gone)
    return firstSight(observed, now, policy, !previous && context.baseline === true);

  const moved = observed.state !== previous.state;
  const base: PipeRecord = {
    ...previous,
    pipeName: observed.pipeName,
    sourceKind: observed.sourceKind ?? previous.sourceKind,
    lastSeenAt: now,
    missedRuns: 0,
    // A new state starts its own stuck clock.
    ...(moved ? { stuckNotified: false } : {}),
  };
  const c = classifyState(observed.state, previous.pipeId, policy);
  const outcome = followCondition<PipeRecord, OwnKind>(
    base,
    { state: observed.state, standing: standingOf(c) },
    now,
    policy,
    {
      unchanged: (record) => stuck(record, c, now, policy),
      changed: (before, next) =>
        c.category === 'unknown' ? unknownOnce(before, next, now) : undefined,
      // An unknown state is told once, not reminded of.
      remind: (problem) => problem.kind !== 'unknown',
    },
  );
  const { next, told } = outcome;
  if (!told) return { next, notifications: [] };
  return {
    next,
    notifications: [notice(next, { ...told, message: words(told, next, now, policy) }, now)],
  };
}

/** What the pipe's own rules tell, besides the common ones. */
type OwnKind = 'stuck' | 'unknown';

/** A transitional state held too long: one warning per stay. */
function stuck(
  record: PipeRecord,
  c: Classification,
  now: number,
  policy: WatchdogPolicy,
): Outcome<PipeRecord, OwnKind> | undefined {
  if (c.category !== 'transitional' || record.stuckNotified) return undefined;
  if (now - record.since <= policy.stuckAfterMs) return undefined;
  const problem: Problem = { state: record.state, severity: 'warning', since: record.since };
  return tell(
    { ...record, stuckNotified: true, announced: { kind: 'stuck', ...problem } },
    { kind: 'stuck', from: record.state, to: record.state, ...problem },
    now,
  );
}

/** An unknown state is told once (a later change to another unknown state is told again). */
function unknownOnce(
  previous: PipeRecord,
  next: PipeRecord,
  now: number,
): Outcome<PipeRecord, OwnKind> {
  if (previous.unknownNotified === next.state) return { next };
  const problem: Problem = { state: next.state, severity: 'warning', since: now };
  return tell(
    { ...next, unknownNotified: next.state, announced: { kind: 'unknown', ...problem } },
    { kind: 'unknown', from: previous.state, to: next.state, ...problem },
    now,
  );
}

/** The pipe's wording of what is told. */
function words(
  told: Told<OwnKind | ConditionKind>,
  record: PipeRecord,
  now: number,
  policy: WatchdogPolicy,
): string {
  const pipe = `Pipe ${record.pipeName}`;
  switch (told.kind) {
    case 'recovery':
      return told.flapEnded
        ? `${pipe} stopped flapping and is ${told.to}`
        : `${pipe} recovered: ${told.from} -> ${told.to}`;
    case 'transition':
      return told.flapEnded
        ? `${pipe} stopped flapping and stays ${told.to}`
        : `${pipe} went from ${told.from} to ${told.to}`;
    case 'stuck':
      return `${pipe} has been ${told.to} for ${Math.round((now - told.since) / 60_000)} min`;
    case 'reminder':
      return `${pipe} is still ${told.to} (${((now - told.since) / UNIT_MS.h).toFixed(1)} h)`;
    case 'flapping':
      return `${pipe} is flapping: ${record.changes.length} state changes in ${Math.round(policy.flapWindowMs / 60_000)} min (now ${told.to}); quiet until stable`;
    case 'unknown':
      return `${pipe} reports an unknown state "${told.to}" (was ${told.from})`;
  }
}
