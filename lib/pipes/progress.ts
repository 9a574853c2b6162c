/**
 * A pipe's progress, pure: from its kept readings and this run's metrics reading, how its
 * counters moved and what that means. Stalled: fetched data waits unsent for the stall time
 * (critical while fetched keeps growing: data piles up). Quiet: nothing fetched, nothing sent for
 * the stall time (told only for pipes expected to have traffic). Erroring: the error counter grew
 * by more than the limit in one run. The rules every condition follows (told once, reminders,
 * flap damping, one recovery) are lib/watch's followCondition; here is only the measuring and
 * the wording. No I/O, no clock of its own: `now` is when the metrics answered.
 */
import * as z from 'zod/mini';
import { UNIT_MS } from '../duration';
import { safeInteger } from '../schemas/builders';
import {
  followCondition,
  type ConditionPolicy,
  type Standing,
  type Told,
  type Watched,
} from '../watch/condition';
import { pipeConditionKey, type PipeNotice, type PipeNoticeKind } from '../watch/subjects/pipe';
import { notice } from './decide';
import { pipeMatcher } from './patterns';
import {
  ERRORS,
  FLOW,
  KEPT_READINGS,
  PROGRESS_COUNTERS,
  type PipeProgress,
  type ProgressReading,
} from './progress-record';
import type { PipeRecord } from './types';

export const progressPolicySchema = z.lazy(() =>
  z.strictObject({
    /** Fetched data unsent this long is stalled; both counters flat this long is quiet. */
    stallAfterMs: z._default(z.number().check(safeInteger(), z.positive()), 30 * 60_000),
    /** Pipe ids, names or name globs that should always have traffic: only they are told quiet. */
    expectTraffic: z._default(z.array(z.string().check(z.minLength(1))), []),
    /** Errors growing by more than this between two runs is erroring. */
    errorsPerRun: z._default(z.number().check(safeInteger(), z.nonnegative()), 0),
    /** Erroring ends after this long without such a run: one clean run between bad ones is no recovery. */
    erroringClearsAfterMs: z._default(z.number().check(safeInteger(), z.positive()), 15 * 60_000),
  }),
);
export type ProgressPolicy = z.output<typeof progressPolicySchema>;

/** How much a counter grew between two readings; a decrease is a reset, counted from zero. */
export function increase(before?: number, after?: number): number | undefined {
  if (before === undefined || after === undefined) return undefined;
  return after >= before ? after - before : after;
}

/** Per minute between two readings of one counter (undefined without both values or time). */
export function ratePerMinute(
  before: { at: number; value?: number } | undefined,
  after: { at: number; value?: number },
): number | undefined {
  const grew = increase(before?.value, after.value);
  if (grew === undefined || !before || after.at <= before.at) return undefined;
  return Math.round((grew / ((after.at - before.at) / 60_000)) * 100) / 100;
}

/** The increases since the last reading (undefined: that counter is missing on either side). */
interface Moved {
  sent?: number;
  fetched?: number;
  errors?: number;
}

interface ProgressContext {
  /** The service was idle since the last reading: the clocks start over. */
  restart?: boolean;
}

export interface ProgressDecision {
  progress: PipeProgress;
  notifications: PipeNotice[];
}

/**
 * The pipe's next progress and what to tell, from `record` (this run's decided state record,
 * holding the progress kept so far) and this run's reading of it.
 */
export function decideProgress(
  record: PipeRecord,
  reading: ProgressReading,
  policy: ProgressPolicy,
  conditions: ConditionPolicy,
  context: ProgressContext = {},
): ProgressDecision {
  const running = record.state === 'Running';
  const { track, moved } = measure(record.progress, reading, running, context.restart === true);
  if (!moved) return { progress: track, notifications: [] };
  const now = reading.at;
  const notifications: PipeNotice[] = [];
  const flowState = flowOf(track, moved, reading, running, policy);
  if (flowState !== undefined) {
    const expects = pipeMatcher(policy.expectTraffic)(record);
    const { next, told } = followFlow(track, flowState, expects, now, conditions);
    track.flow = next;
    if (told) notifications.push(progressNotice(record, track, told, 'progress', now, policy));
  }
  const errorsState = errorsOf(track, moved, now, policy);
  if (errorsState !== undefined) {
    const erroring = errorsState === ERRORS.erroring && (moved.errors ?? 0) > policy.errorsPerRun;
    const base = erroring ? { ...track.errors, lastErroringAt: now } : track.errors;
    const standing: Standing = errorsState === ERRORS.erroring ? 'warning' : 'healthy';
    const { next, told } = followCondition(base, { state: errorsState, standing }, now, conditions);
    track.errors = next;
    if (told) notifications.push(progressNotice(record, track, told, 'errors', now, policy));
  }
  return { progress: track, notifications };
}

const fresh = (state: string, at: number): Watched => ({
  state,
  since: at,
  changes: [],
  flapping: false,
});

/**
 * The kept progress with this reading added, and the increases since the last one (none on a
 * baseline: a first reading, another counter, or clocks started over after an idle service).
 */
function measure(
  previous: PipeProgress | undefined,
  reading: ProgressReading,
  running: boolean,
  restart: boolean,
): { track: PipeProgress; moved?: Moved } {
  const at = reading.at;
  const last = previous?.readings.at(-1);
  if (!previous || !last || last.counter !== reading.counter || restart || at <= last.at) {
    const flow = previous?.flow ?? fresh(FLOW.moving, at);
    const errors = previous?.errors ?? fresh(ERRORS.ok, at);
    return { track: { readings: [reading], sentSince: at, fetchedSince: at, flow, errors } };
  }
  const moved: Moved = {
    sent: increase(last.sent, reading.sent),
    fetched: increase(last.fetched, reading.fetched),
    errors: increase(last.errors, reading.errors),
  };
  const track: PipeProgress = {
    ...previous,
    readings: [...previous.readings, reading].slice(-KEPT_READINGS),
  };
  // Not Running, nothing is expected to move: the clocks start when it runs again.
  if (!running)
    return {
      track: { ...track, sentSince: at, fetchedSince: at, waitingSince: undefined },
      moved,
    };
  if (moved.sent !== 0) {
    // Sent moved (or cannot be compared): nothing is known to wait.
    track.sentSince = at;
    track.waitingSince = undefined;
  }
  if (moved.fetched) {
    track.fetchedSince = at;
    // The data came after the last reading: it has waited at most since then.
    if (moved.sent === 0) track.waitingSince ??= last.at;
  }
  return { track, moved };
}

/** The flow this run; undefined when it is not followed (not Running, no sent counter). */
function flowOf(
  track: PipeProgress,
  moved: Moved,
  reading: ProgressReading,
  running: boolean,
  policy: ProgressPolicy,
): string | undefined {
  // Not Running: its state condition speaks for it; the flow is held as it was.
  if (!running) return undefined;
  if (reading.sent === undefined || moved.sent === undefined) return undefined;
  if (moved.sent > 0) return FLOW.moving;
  const now = reading.at;
  if (track.waitingSince !== undefined && now - track.waitingSince >= policy.stallAfterMs)
    // Once data piled up, the stall stays critical until something is sent.
    return moved.fetched || track.flow.state === FLOW.pilingUp ? FLOW.pilingUp : FLOW.stalled;
  // Without a fetched counter a flat sent counter cannot be told from a quiet source.
  if (now - Math.max(track.sentSince, track.fetchedSince) >= policy.stallAfterMs) return FLOW.quiet;
  return FLOW.moving;
}

function flowStanding(state: string, expectsTraffic: boolean): Standing {
  switch (state) {
    case FLOW.pilingUp:
      return 'critical';
    case FLOW.stalled:
      return 'warning';
    case FLOW.quiet:
      return expectsTraffic ? 'warning' : 'healthy';
    default:
      return 'healthy';
  }
}

/** The flow condition followed; a stall is dated from when its data began to wait. */
function followFlow(
  track: PipeProgress,
  state: string,
  expectsTraffic: boolean,
  now: number,
  conditions: ConditionPolicy,
) {
  const outcome = followCondition(
    track.flow,
    { state, standing: flowStanding(state, expectsTraffic) },
    now,
    conditions,
  );
  const { next, told } = outcome;
  if (told?.kind !== 'transition' || !next.announced) return outcome;
  const began =
    state === FLOW.quiet ? Math.max(track.sentSince, track.fetchedSince) : track.waitingSince;
  const since = Math.min(began ?? now, now);
  return {
    next: { ...next, announced: { ...next.announced, since } },
    told: { ...told, since },
  };
}

/** The errors condition this run; undefined when the error counter cannot be compared. */
function errorsOf(
  track: PipeProgress,
  moved: Moved,
  now: number,
  policy: ProgressPolicy,
): string | undefined {
  if (moved.errors === undefined) return undefined;
  if (moved.errors > policy.errorsPerRun) return ERRORS.erroring;
  const lastBad = track.errors.lastErroringAt;
  const holding = track.errors.state === ERRORS.erroring && lastBad !== undefined;
  return holding && now - lastBad < policy.erroringClearsAfterMs ? ERRORS.erroring : ERRORS.ok;
}

type ProgressCondition = 'progress' | 'errors';

/** The notice of a progress condition: its own dedup key, the readings and rate it was told on. */
function progressNotice(
  record: PipeRecord,
  track: PipeProgress,
  told: Told,
  condition: ProgressCondition,
  now: number,
  policy: ProgressPolicy,
): PipeNotice {
  const kind: PipeNoticeKind =
    told.kind !== 'transition'
      ? told.kind
      : condition === 'errors'
        ? 'erroring'
        : told.to === FLOW.quiet
          ? 'quiet'
          : 'stalled';
  const progress = readingsFacts(track, condition);
  const message = wordProgress({ ...told, kind }, record, track, progress, now, policy);
  return notice(record, { ...told, kind, message }, now, {
    dedupKey: pipeConditionKey(record, condition),
    condition,
    progress,
  });
}

type ProgressFacts = NonNullable<PipeNotice['progress']>;
type Field = 'sent' | 'fetched' | 'errors';

/** The last two readings of the condition's counter, and the rates between them. */
function readingsFacts(track: PipeProgress, condition: ProgressCondition): ProgressFacts {
  const field: Field = condition === 'errors' ? 'errors' : 'sent';
  const after = track.readings.at(-1)!;
  const before = track.readings.length >= 2 ? track.readings.at(-2) : undefined;
  const rate = (f: Field) =>
    ratePerMinute(before && { at: before.at, value: before[f] }, { at: after.at, value: after[f] });
  const facts: ProgressFacts = {
    metric: PROGRESS_COUNTERS[after.counter][field],
    readings: [before, after].flatMap((r) => {
      const value = r?.[field];
      return r && value !== undefined ? [{ at: new Date(r.at).toISOString(), value }] : [];
    }),
  };
  const sentRate = rate(field);
  if (sentRate !== undefined) facts.ratePerMinute = sentRate;
  const fetchedRate = condition === 'progress' ? rate('fetched') : undefined;
  if (fetchedRate !== undefined) facts.fetchedPerMinute = fetchedRate;
  return facts;
}

/** The words of a progress notice. */
function wordProgress(
  told: Told<PipeNoticeKind>,
  record: PipeRecord,
  track: PipeProgress,
  facts: ProgressFacts,
  now: number,
  policy: ProgressPolicy,
): string {
  const pipe = `Pipe ${record.pipeName}`;
  const unit = track.readings.at(-1)!.counter === 'events' ? 'events' : 'batches';
  const minutes = Math.round((now - told.since) / 60_000);
  const perMinute = (n: number | undefined) => (n === undefined ? '?' : String(n));
  switch (told.kind) {
    case 'stalled':
      return told.to === FLOW.pilingUp
        ? `${pipe} has sent nothing for ${minutes} min while it keeps fetching (${perMinute(facts.fetchedPerMinute)} ${unit}/min): data is piling up`
        : `${pipe} has sent nothing for ${minutes} min though ${unit} were fetched meanwhile`;
    case 'quiet':
      return `${pipe} has fetched and sent nothing for ${minutes} min, and it is expected to have traffic`;
    case 'erroring':
      return `${pipe} is erroring: ${perMinute(facts.ratePerMinute)} errors/min since the last run (more than ${policy.errorsPerRun} a run is erroring)`;
    case 'recovery':
      return told.from === ERRORS.erroring
        ? `${pipe} stopped erroring`
        : `${pipe} is moving again (${perMinute(facts.ratePerMinute)} ${unit}/min sent)`;
    case 'reminder':
      return `${pipe} is still ${told.to} (${((now - told.since) / UNIT_MS.h).toFixed(1)} h)`;
    case 'flapping':
      return `${pipe} keeps changing between ${told.from} and ${told.to}; quiet until stable`;
    default:
      return `${pipe} ${told.kind}: ${told.from} -> ${told.to}`;
  }
}
