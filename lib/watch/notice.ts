/**
 * What every notice carries, whatever it is about. A notice is one thing worth telling a
 * person; its subject (lib/watch/subjects/) adds who or what it is about and how it reads.
 */
import * as z from 'zod/mini';

export const SEVERITIES = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Every subject a notice may be about (a route may name them); each has its file in subjects/,
 * and a watcher reads and renders only its own (notices.ts).
 */
export const SUBJECTS = ['pipe', 'service', 'dashboards', 'key'] as const;
type Subject = (typeof SUBJECTS)[number];

/** The fields of every subject's notice (each subject adds its own `subject`, `kind` and ids). */
export const noticeCore = {
  /** This occurrence: the dedupe key of its pending delivery, across retries and stores. */
  id: z.string().check(z.minLength(1)),
  /**
   * Stable per subject and condition (e.g. one pipe's health): a receiver that keeps incidents
   * opens, updates and closes one by it.
   */
  dedupKey: z.string().check(z.minLength(1)),
  /** True when this notice closes the condition under `dedupKey` (a recovery). */
  resolves: z.boolean(),
  severity: z.enum(SEVERITIES),
  /** The state before and after; '' when there is none (a first sight, a subject gone). */
  from: z.string(),
  to: z.string(),
  /** ISO time of the observation. */
  at: z.string(),
  /** ISO time the condition began (for a reminder: when the problem began). */
  since: z.string(),
  message: z.string(),
};

/** A notice of any subject, as the engine sees it: the fields above, its subject and kind. */
export type Notice = z.output<z.ZodMiniObject<typeof noticeCore>> & {
  subject: Subject;
  kind: string;
};

/**
 * The one wording of a state change: `Running -> Failed` when the state moved, else the one
 * state (`''` when there is none). `mark` decorates each state (Slack bolds them).
 */
export function describeChange(
  n: { from: string; to: string },
  options: { arrow?: string; mark?: (state: string) => string } = {},
): string {
  const mark = options.mark ?? ((s: string) => s);
  if (n.from && n.to && n.from !== n.to)
    return `${mark(n.from)} ${options.arrow ?? '->'} ${mark(n.to)}`;
  const state = n.to || n.from;
  return state ? mark(state) : '';
}

/** A labelled fact of a notice, typed so each channel can show (and escape) it its own way. */
export type Fact = { label: string } & (
  | { text: string }
  /** An identifier (shown as code), after its name when it has one. */
  | { id: string; name?: string }
  /** An ISO time. */
  | { time: string }
  | { from: string; to: string }
);

/**
 * A notice as people and machines receive it, made by its subject's renderer: no notifier
 * knows which capability sent it.
 */
export interface RenderedNotice {
  /** One line, e.g. `[CRITICAL] pipe orders transition: Running -> Failed`. */
  title: string;
  facts: Fact[];
  /** Longer details in markdown (a drift's plan). */
  details?: string;
  /** The first thing to check, one sentence; none when nothing needs doing (a recovery). */
  hint?: string;
  /** Values a link template may use (`{serviceId}`), and the link's label; none: no link. */
  link?: { label: string; fields: Record<string, string> };
  /** Where it happened, for an incident receiver: the system, the part of it, their group. */
  origin: { source: string; component?: string; group?: string };
  /** What a route may match a pipe's notice by (lib/watch/routes.ts); none for other subjects. */
  routing?: { pipeId: string; pipeName: string; sourceKind?: string };
  /** The EventBridge detail-type and detail; the webhook's `type`. */
  event: { type: string; detail: object };
  /** Filterable string attributes (SNS message attributes); '' values are left out. */
  attributes: Record<string, string>;
}

/** A watcher's renderer of its notices (notices.ts): every notifier it makes is given it. */
export type RenderNotice = (n: Notice) => RenderedNotice;

/** What every channel adds to a notice so it explains itself: its hint, and its link. */
interface Explanation {
  hint?: string;
  link?: { label: string; url: string };
}

/**
 * The hint and the link of a rendered notice; the link is the template with the notice's fields
 * in place (each URL-encoded), and only when the template names no other placeholder.
 */
export function explain(rendered: RenderedNotice, linkTemplate: string | undefined): Explanation {
  const out: Explanation = rendered.hint ? { hint: rendered.hint } : {};
  const fields = rendered.link?.fields;
  if (!linkTemplate || !fields) return out;
  let complete = true;
  const url = linkTemplate.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!(name in fields) || fields[name] === '') complete = false;
    return name in fields ? encodeURIComponent(fields[name]) : whole;
  });
  return complete ? { ...out, link: { label: rendered.link!.label, url } } : out;
}

/** `[CRITICAL] <what> <kind>: <change>`, at most 100 characters (an SNS subject's limit). */
export function titleOf(
  n: { severity: Severity; kind: string; from: string; to: string },
  what: string,
): string {
  const change = describeChange(n);
  return `[${n.severity.toUpperCase()}] ${what} ${n.kind}${change ? `: ${change}` : ''}`.slice(
    0,
    100,
  );
}
