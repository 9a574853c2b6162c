import * as z from 'zod';
import { NOTIFICATION_KINDS, pipeNotification, SEVERITIES } from '../notify/notification';

// The notification itself belongs to lib/notify (what notifiers deliver); re-exported here for
// the watchdog's callers.
export {
  NOTIFICATION_KINDS,
  pipeEventDetail,
  pipeNotification,
  type NotificationKind,
  type PipeNotification,
} from '../notify/notification';

/** A notification not yet delivered to every notifier; claimed by one run at a time. */
export const pendingDelivery = z.object({
  notification: pipeNotification,
  /** Notifier names still owed this notification. */
  remaining: z.array(z.string()),
  claimedBy: z.string().optional(),
  claimedAt: z.number().optional(),
  attempts: z.number().int().default(0),
});
export type PendingDelivery = z.infer<typeof pendingDelivery>;

/** The problem last announced for a pipe (drives reminders and recovery). */
export const announcedProblem = z.object({
  kind: z.enum(NOTIFICATION_KINDS),
  state: z.string(),
  severity: z.enum(SEVERITIES),
  /** When the problem began (ms epoch). */
  since: z.number(),
});

/** What the store keeps per pipe. Times are ms since the epoch. */
export const pipeRecord = z.object({
  organizationId: z.string(),
  serviceId: z.string(),
  pipeId: z.string(),
  pipeName: z.string(),
  state: z.string(),
  /** When `state` was entered (first seen, for a new pipe). */
  since: z.number(),
  lastSeenAt: z.number(),
  lastNotifiedAt: z.number().optional(),
  announced: announcedProblem.optional(),
  /** Times of recent state changes (flap history, trimmed to the flap window). */
  changes: z.array(z.number()).default([]),
  flapping: z.boolean().default(false),
  stuckNotified: z.boolean().default(false),
  /** The unknown state value already reported (reported once). */
  unknownNotified: z.string().optional(),
  gone: z.boolean().default(false),
  /** Times of auto-restart attempts (trimmed to the restart window). */
  restarts: z.array(z.number()).default([]),
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
}
