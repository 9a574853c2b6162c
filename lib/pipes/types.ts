import * as z from 'zod';
import { pipeStateChangedDetail, type PipeStateChangedDetail } from '../events/schemas';
import { SEVERITIES } from './classify';

export const NOTIFICATION_KINDS = [
  'transition',
  'reminder',
  'recovery',
  'flapping',
  'stuck',
  'unknown',
  'new',
  'gone',
  'restart',
  'watchdog',
] as const;

/**
 * One thing worth telling a person (DESIGN.md: `pipes check --json` and the
 * `Pipe State Changed` event). Built on the event's detail schema (lib/events/schemas.ts, the
 * one source of truth for that shape) with what the watchdog adds: a dedupe id, `since`, and
 * its own kinds and severities. `restart` (an auto-restart attempt) and `watchdog` (a service
 * that could not be listed M runs in a row) extend the documented kinds.
 */
export const pipeNotification = z.object({
  ...pipeStateChangedDetail.shape,
  /** Stable id: dedupe key across retries and stores. */
  id: z.string().min(1),
  kind: z.enum(NOTIFICATION_KINDS),
  severity: z.enum(SEVERITIES),
  // organizationId, serviceId, pipeId, pipeName; `from` is '' when the pipe is new, `to` ''
  // when it is gone; `at` is the ISO time of the observation.
  /** ISO time the pipe entered `to` (or the problem began, for reminders). */
  since: z.string(),
  message: z.string(),
});
export type PipeNotification = z.infer<typeof pipeNotification>;
export type NotificationKind = PipeNotification['kind'];

/** Exactly the event's detail fields (the id and `since` stay internal). */
const eventDetail = z.object(pipeStateChangedDetail.shape);

/** The `Pipe State Changed` detail of a notification. */
export function pipeEventDetail(n: PipeNotification): PipeStateChangedDetail {
  return eventDetail.parse(n);
}

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
