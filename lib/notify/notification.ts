/**
 * What a notifier delivers: one thing worth telling a person about a pipe or a service. Lives in
 * lib/notify (the lower folder): lib/pipes builds these and depends on lib/notify, never the
 * other way round.
 */
import * as z from 'zod';
import { pipeStateChangedDetail, type PipeStateChangedDetail } from '../events/schemas';

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

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
  'idle',
  'active',
] as const;

/**
 * DESIGN.md: `pipes check --json` and the `Pipe State Changed` event. Built on the event's
 * detail schema (lib/events/schemas.ts, the one source of truth for that shape) with what the
 * watchdog adds: a dedupe id, `since`, and its own kinds and severities. `restart` (an
 * auto-restart attempt), `watchdog` (a service that could not be listed M runs in a row),
 * `idle` / `active` (a service that scaled to zero, and back) extend the documented kinds.
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
  /**
   * What the notice is about: a pipe or a service (absent, the watchdog's), or `dashboards`
   * drifting from their files (the sync in report mode: serviceId names the deployment's
   * owner, from/to are InSync / Drifted).
   */
  about: z.enum(['pipe', 'dashboards']).optional(),
  /** Details in markdown (the drift's plan), shown by notifiers that can. */
  markdown: z.string().optional(),
});
export type PipeNotification = z.infer<typeof pipeNotification>;
export type NotificationKind = PipeNotification['kind'];

/** Exactly the event's detail fields (the id and `since` stay internal). */
const eventDetail = z.object(pipeStateChangedDetail.shape);

/** The `Pipe State Changed` detail of a notification. */
export function pipeEventDetail(n: PipeNotification): PipeStateChangedDetail {
  return eventDetail.parse(n);
}

/**
 * The one wording of a state change: `Running -> Failed` when the state moved, else the one
 * state (`''` when there is none, e.g. a self-watch notice). `mark` decorates each state
 * (Slack bolds them).
 */
export function describeChange(
  n: Pick<PipeNotification, 'from' | 'to'>,
  options: { arrow?: string; mark?: (state: string) => string } = {},
): string {
  const mark = options.mark ?? ((s: string) => s);
  if (n.from && n.to && n.from !== n.to)
    return `${mark(n.from)} ${options.arrow ?? '->'} ${mark(n.to)}`;
  const state = n.to || n.from;
  return state ? mark(state) : '';
}

/** The `detail-type` of a drift notice on EventBridge (a pipe notice is `Pipe State Changed`). */
export const DASHBOARDS_DRIFTED = 'Dashboards Drifted';

/** A one-line subject, e.g. `[CRITICAL] pipe orders transition: Running -> Failed`. */
export function subjectOf(n: PipeNotification): string {
  const what =
    n.about === 'dashboards'
      ? `dashboards of ${n.serviceId}`
      : n.pipeId
        ? `pipe ${n.pipeName}`
        : `service ${n.serviceId}`;
  const change = describeChange(n);
  return `[${n.severity.toUpperCase()}] ${what} ${n.kind}${change ? `: ${change}` : ''}`.slice(
    0,
    100,
  );
}
