import * as z from 'zod/mini';
import { safeInteger } from '../schemas/builders';
import { watchedCondition } from '../watch/condition';
import { pendingDeliveryOf } from '../watch/ledger';
import { WATCHDOG_NOTICES } from '../watch/subjects/watchdog';
import { pipeProgress, type ProgressReading } from './progress-record';

/** What the store keeps per pipe: its condition (lib/watch) plus the watchdog's own fields. */
export const pipeRecord = z.lazy(() =>
  z.object({
    organizationId: z.string(),
    serviceId: z.string(),
    pipeId: z.string(),
    pipeName: z.string(),
    ...watchedCondition,
    lastSeenAt: z.number(),
    stuckNotified: z._default(z.boolean(), false),
    /** The unknown state value already reported (reported once). */
    unknownNotified: z.optional(z.string()),
    gone: z._default(z.boolean(), false),
    /** Consecutive runs whose answer lacked the pipe (reset when seen); gone takes two. */
    missedRuns: z._default(z.number().check(safeInteger(), z.nonnegative()), 0),
    /** Times of auto-restart attempts (trimmed to the restart window). */
    restarts: z._default(z.array(z.number()), []),
    /** `clickpipe_source` or the listing's source member (kafka, s3, postgres, ...), when known. */
    sourceKind: z.optional(z.string()),
    /** Progress from the metrics endpoint (absent until a metrics reading of the pipe). */
    progress: z.optional(pipeProgress),
    pending: z._default(z.array(pendingDeliveryOf(WATCHDOG_NOTICES.schema)), []),
    /** Epoch SECONDS: DynamoDB's TTL removes a gone pipe's record after its retention. */
    expiresAt: z.optional(z.number().check(safeInteger())),
    /** Optimistic-concurrency version: every write is conditional on the previous one. */
    version: z.number().check(safeInteger(), z.nonnegative()),
  }),
);
export type PipeRecord = z.infer<typeof pipeRecord>;

/** Per-service health of the watchdog itself (consecutive failed listings). */
export const serviceRecord = z.lazy(() =>
  z.object({
    organizationId: z.string(),
    serviceId: z.string(),
    consecutiveFailures: z.number().check(safeInteger(), z.nonnegative()),
    lastError: z.optional(z.string()),
    /** Set once the failure streak has been announced, cleared when a listing works again. */
    announced: z._default(z.boolean(), false),
    /** The service answered 424 (idle, scaled to zero): announced once, cleared when active. */
    idle: z._default(z.boolean(), false),
    /** When a listing first worked: before it, the pipes found are a silent baseline. */
    baselineAt: z.optional(z.number()),
    /** The fan-out run that last finished this service (a redelivered message skips it). */
    lastRunId: z.optional(z.string()),
    /** The metrics endpoint was not served (an HTML 404): the pipes are listed until this time. */
    metricsUnservedUntil: z.optional(z.number()),
    /** The next run lists the pipes instead of reading the metrics, because of what they lacked. */
    listingDue: z.optional(z.string()),
    pending: z._default(z.array(pendingDeliveryOf(WATCHDOG_NOTICES.schema)), []),
    version: z.number().check(safeInteger(), z.nonnegative()),
  }),
);
export type ServiceRecord = z.infer<typeof serviceRecord>;

/** What the watchdog observed of a pipe this run. */
export interface ObservedPipe {
  organizationId: string;
  serviceId: string;
  pipeId: string;
  pipeName: string;
  state: string;
  /** The pipe's `updatedAt`: on first sight, the best guess of when it entered `state`. */
  updatedAt?: string;
  sourceKind?: string;
  /** This run's metrics reading of the pipe (none when its service was listed instead). */
  reading?: ProgressReading;
}
