/**
 * The rules every watched condition follows, pure: whatever the subject (a pipe's health, a
 * deployment's drift), a problem is told once, reminded while it lasts and its end told as a
 * recovery; a subject that changes state too often is told once as flapping, then kept quiet
 * until it is stable. The subject classifies its states and words what is told.
 */
import * as z from 'zod/mini';
import { UNIT_MS } from '../duration';
import { safeInteger } from '../schemas/builders';
import { SEVERITIES, type Severity } from './notice';

export const CONDITION_KINDS = ['transition', 'reminder', 'recovery', 'flapping'] as const;
export type ConditionKind = (typeof CONDITION_KINDS)[number];

export const conditionPolicySchema = z.strictObject({
  /** While a problem lasts, remind after this long without a notice. */
  reminderIntervalMs: z._default(z.number().check(safeInteger(), z.positive()), 4 * UNIT_MS.h),
  /** More than this many state changes inside `flapWindowMs` is flapping. */
  flapMaxChanges: z._default(z.number().check(safeInteger(), z.positive()), 3),
  flapWindowMs: z._default(z.number().check(safeInteger(), z.positive()), 15 * 60_000),
  /** A flapping subject is stable again after this long without a change. */
  flapStableMs: z._default(z.number().check(safeInteger(), z.positive()), 15 * 60_000),
});
export type ConditionPolicyInput = z.input<typeof conditionPolicySchema>;
export type ConditionPolicy = z.output<typeof conditionPolicySchema>;

/** The problem last announced (drives reminders and the recovery). */
const announcedProblem = z.lazy(() =>
  z.object({
    kind: z.string(),
    state: z.string(),
    severity: z.enum(SEVERITIES),
    /** When the problem began (ms epoch). */
    since: z.number(),
  }),
);
type AnnouncedProblem = z.infer<typeof announcedProblem>;

/** What a subject's stored record keeps of its condition. Times are ms since the epoch. */
export const watchedCondition = {
  state: z.string(),
  /** When `state` was entered. */
  since: z.number(),
  lastNotifiedAt: z.optional(z.number()),
  announced: z.optional(announcedProblem),
  /** Times of recent state changes (flap history, trimmed to the flap window). */
  changes: z._default(z.array(z.number()), []),
  flapping: z._default(z.boolean(), false),
};
export type Watched = z.output<z.ZodMiniObject<typeof watchedCondition>>;

/** How a state stands: a problem of some severity, healthy, or passing through (neither). */
export type Standing = Severity | 'healthy' | 'transitional';

/** What to tell; the subject words it. */
export interface Told<K extends string = ConditionKind> {
  kind: K;
  severity: Severity;
  from: string;
  to: string;
  /** When the told condition began (ms epoch). */
  since: number;
  /** A flapping episode ended (worded apart from an ordinary change). */
  flapEnded?: boolean;
}

export interface Outcome<R, K extends string = ConditionKind> {
  /** The record to store (pending deliveries and version are the caller's). */
  next: R;
  told?: Told<K>;
}

/** Tell `told`, noting the time on the record. */
export function tell<R extends Watched, K extends string>(
  next: R,
  told: Told<K>,
  now: number,
): Outcome<R, K> {
  return { next: { ...next, lastNotifiedAt: now }, told };
}

/** A subject's own rules, placed among the common ones. */
interface ConditionHooks<R, K extends string> {
  /** Same state and no flapping to end: checked before the reminder (a pipe stuck in Setup). */
  unchanged?: (record: R) => Outcome<R, K> | undefined;
  /** A new state, not damped: checked before the verdict (an unknown state, told once). */
  changed?: (previous: R, next: R) => Outcome<R, K> | undefined;
  /** Whether an announced problem gets reminders. @default every one */
  remind?: (problem: AnnouncedProblem) => boolean;
}

/** The next record of a condition already watched, and what (if anything) to tell. */
export function followCondition<R extends Watched, K extends string = ConditionKind>(
  record: R,
  observed: { state: string; standing: Standing },
  now: number,
  policy: ConditionPolicy,
  hooks: ConditionHooks<R, K> = {},
): Outcome<R, K | ConditionKind> {
  if (observed.state === record.state) {
    return (
      endFlapping(record, observed.standing, now, policy) ??
      hooks.unchanged?.(record) ??
      remind(record, now, policy, hooks.remind) ?? { next: record }
    );
  }
  const next: R = {
    ...record,
    state: observed.state,
    since: now,
    changes: [...record.changes.filter((t) => now - t < policy.flapWindowMs), now],
  };
  return (
    dampFlapping(record, next, now, policy) ??
    hooks.changed?.(record, next) ??
    judgeChange(record, next, observed.standing, now)
  );
}

/** A flapping subject stable long enough: the episode ends in a recovery or a standing problem. */
function endFlapping<R extends Watched>(
  record: R,
  standing: Standing,
  now: number,
  policy: ConditionPolicy,
): Outcome<R> | undefined {
  if (!record.flapping) return undefined;
  const lastChange = record.changes.at(-1) ?? record.since;
  if (now - lastChange < policy.flapStableMs) return { next: record };
  const next: R = { ...record, flapping: false, changes: [] };
  const told = {
    from: record.announced?.state ?? record.state,
    to: record.state,
    since: record.since,
    flapEnded: true,
  };
  if (standing === 'healthy')
    return tell(
      { ...next, announced: undefined },
      { kind: 'recovery', severity: 'info', ...told },
      now,
    );
  const severity = standing === 'transitional' ? 'warning' : standing;
  return tell(
    {
      ...next,
      announced: { kind: 'transition', state: record.state, severity, since: record.since },
    },
    { kind: 'transition', severity, ...told },
    now,
  );
}

/** While a problem lasts: a reminder once the interval has passed since the last notice. */
function remind<R extends Watched>(
  record: R,
  now: number,
  policy: ConditionPolicy,
  reminds: (problem: AnnouncedProblem) => boolean = () => true,
): Outcome<R> | undefined {
  const problem = record.announced;
  if (!problem || !reminds(problem)) return undefined;
  if (now - (record.lastNotifiedAt ?? 0) < policy.reminderIntervalMs) return undefined;
  return tell(
    record,
    {
      kind: 'reminder',
      severity: problem.severity,
      from: record.state,
      to: record.state,
      since: problem.since,
    },
    now,
  );
}

/** Too many changes inside the window: told once as flapping; while flapping, changes are quiet. */
function dampFlapping<R extends Watched>(
  previous: R,
  next: R,
  now: number,
  policy: ConditionPolicy,
): Outcome<R> | undefined {
  if (previous.flapping) return { next };
  if (next.changes.length <= policy.flapMaxChanges) return undefined;
  return tell(
    {
      ...next,
      flapping: true,
      announced: { kind: 'flapping', state: next.state, severity: 'warning', since: now },
    },
    { kind: 'flapping', severity: 'warning', from: previous.state, to: next.state, since: now },
    now,
  );
}

/** A problem state is a transition; a healthy one ends an announced problem; passing is quiet. */
function judgeChange<R extends Watched>(
  previous: R,
  next: R,
  standing: Standing,
  now: number,
): Outcome<R> {
  const change = { from: previous.state, to: next.state, since: now };
  if (standing === 'healthy' && previous.announced)
    return tell(
      { ...next, announced: undefined },
      { kind: 'recovery', severity: 'info', ...change },
      now,
    );
  if (standing === 'healthy' || standing === 'transitional') return { next };
  return tell(
    {
      ...next,
      announced: { kind: 'transition', state: next.state, severity: standing, since: now },
    },
    { kind: 'transition', severity: standing, ...change },
    now,
  );
}
