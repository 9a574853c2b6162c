/**
 * What the watchdog keeps of a pipe's progress between runs, inside the pipe's record: the last
 * few metrics readings, since when each counter has held its value, and two conditions that
 * lib/watch's rules follow: the flow (moving → stalled / quiet) and the errors (ok → erroring).
 */
import * as z from 'zod/mini';
import { PIPE_METRICS } from '../schemas/metrics';
import { watchedCondition } from '../watch/condition';

/** Readings kept per pipe: notices need the last two, `pipes get` shows the rest (30 min at 5). */
export const KEPT_READINGS = 6;

/**
 * The counters a pipe's progress is read from: streaming and object-storage pipes count events,
 * database pipes number their batches (API-FACTS: "for database pipes, watch LastSentBatchId").
 */
export const PROGRESS_COUNTERS = {
  events: {
    sent: PIPE_METRICS.sentEvents.metric,
    fetched: PIPE_METRICS.fetchedEvents.metric,
    errors: PIPE_METRICS.errors.metric,
  },
  batches: {
    sent: PIPE_METRICS.lastSentBatchId.metric,
    fetched: PIPE_METRICS.lastFetchedBatchId.metric,
    errors: PIPE_METRICS.errors.metric,
  },
} as const;

/** One metrics reading of a pipe. Every value is optional: every metric is. */
export const progressReading = z.lazy(() =>
  z.object({
    /** When the service's metrics answered (ms epoch). */
    at: z.number(),
    counter: z.enum(['events', 'batches']),
    sent: z.optional(z.number()),
    fetched: z.optional(z.number()),
    errors: z.optional(z.number()),
  }),
);
export type ProgressReading = z.infer<typeof progressReading>;

/**
 * The flow condition's states. `moving` covers "nothing to say yet" too (data fetched and not yet
 * sent, a counter flat for less than the stall time).
 */
export const FLOW = {
  moving: 'moving',
  /** Sent and fetched both flat for the stall time: a quiet source, or a stall with no backlog. */
  quiet: 'quiet',
  /** Fetched data waits unsent for the stall time; the backlog stopped growing. */
  stalled: 'stalled',
  /** Fetched data waits unsent for the stall time and fetched is still growing. */
  pilingUp: 'piling-up',
} as const;

export const ERRORS = { ok: 'ok', erroring: 'erroring' } as const;

export const pipeProgress = z.lazy(() =>
  z.object({
    /** The last readings, oldest first (at most KEPT_READINGS). */
    readings: z._default(z.array(progressReading), []),
    /** Since when `sent` has held its value (or its clock started over). */
    sentSince: z.number(),
    fetchedSince: z.number(),
    /** Fetched data has waited unsent since this reading: fetched grew after it, sent did not. */
    waitingSince: z.optional(z.number()),
    flow: z.object(watchedCondition),
    errors: z.object({
      ...watchedCondition,
      /** The last run whose errors grew by more than the limit. */
      lastErroringAt: z.optional(z.number()),
    }),
  }),
);
export type PipeProgress = z.infer<typeof pipeProgress>;
