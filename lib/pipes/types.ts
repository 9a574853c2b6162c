import * as z from 'zod';
import { watchedCondition } from '../watch/condition';
import { pendingDelivery } from '../watch/ledger';
import { pipeProgress, type ProgressReading } from './progress-record';

/** What the store keeps per pipe: its condition (lib/watch) plus the watchdog's own fields. */
export const pipeRecord = z.object({
  organizationId: z.string(),
  serviceId: z.string(),
  pipeId: z.string(),
  pipeName: z.string(),
  ...watchedCondition,
  lastSeenAt: z.number(),
  stuckNotified: z.boolean().default(false),
  /** The unknown state value already reported (reported once). */
  unknownNotified: z.string().optional(),
  gone: z.boolean().default(false),
  /** Consecutive runs whose answer lacked the pipe (reset when seen); gone takes two. */
  missedRuns: z.number().int().nonnegative().default(0),
  /** Times of auto-restart attempts (trimmed to the restart window). */
  restarts: z.array(z.number()).default([]),
  /** `clickpipe_source` or the listing's source member (kafka, s3, postgres, ...), when known. */
  sourceKind: z.string().optional(),
  /** Progress from the metrics endpoint (absent until a metrics reading of the pipe). */
  progress: pipeProgress.optional(),
  pending: z.array(pendingDelivery).default([]),
  /** Epoch SECONDS: DynamoDB's TTL removes a gone pipe's record after its retention. */
  expiresAt: z.number().int().optional(),
  /** Optimistic-concurrency version: every write is conditional on the previous one. */
  version: z.number().int().nonnegative(),
});
export type PipeRecord = z.infer<typeof pipeRecord>;

/** Per-service health of the watchdog itself (consecutive failed listings). */
export const serviceRecord = z.object({
  organizationId: z.string(),
  serviceId: z.string(),
  consecutiveFailures: z.number().int().nonnegative(),
  lastError: z.string().optional(),
  /** Set once the failure streak has been announced, cleared when a listing works again. */
  announced: z.boolean().default(false),
  /** The service answered 424 (idle, scaled to zero): announced once, cleared when active. */
  idle: z.boolean().default(false),
  /** When a listing first worked: before it, the pipes found are a silent baseline. */
  baselineAt: z.number().optional(),
  /** The fan-out run that last finished this service (a redelivered message skips it). */
  lastRunId: z.string().optional(),
  /** The metrics endpoint was not served (an HTML 404): the pipes are listed until this time. */
  metricsUnservedUntil: z.number().optional(),
  /** The next run lists the pipes instead of reading the metrics, because of what they lacked. */
  listingDue: z.string().optional(),
  pending: z.array(pendingDelivery).default([]),
  version: z.number().int().nonnegative(),
});
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
