/** A pipe's notice: its state changes, reminders, recovery, and the watchdog's acts on it. */
import * as z from 'zod/mini';
import { PIPE_STATE_CHANGED } from '../../events/names';
import { pipeStateChangedDetail, type PipeStateChangedDetail } from '../../events/pipe-state';
import { noticeCore, titleOf, type Fact, type RenderedNotice } from '../notice';
import type { SubjectRenderer } from '../notices';
import { pipeHint } from './pipe-hints';

const PIPE_NOTICE_KINDS = [
  'transition',
  'reminder',
  'recovery',
  'flapping',
  'stuck',
  'unknown',
  'new',
  'gone',
  /** An auto-restart attempt. */
  'restart',
  /** Progress (from the metrics): Running, and what was fetched is not sent. */
  'stalled',
  /** Progress: nothing fetched, nothing sent (told only for pipes expected to have traffic). */
  'quiet',
  /** Progress: the error counter grew by more than the limit in one run. */
  'erroring',
] as const;
export type PipeNoticeKind = (typeof PIPE_NOTICE_KINDS)[number];

/** A progress notice: the counter it read, its last two readings and the rate between them. */
const progress = z.lazy(() =>
  z.object({
    /** The metric's name as the service publishes it, e.g. `ClickPipes_SentEvents_Total`. */
    metric: z.string(),
    readings: z.array(z.object({ at: z.string(), value: z.number() })),
    /** Per minute between the two readings; a counter that went down restarted from zero. */
    ratePerMinute: z.optional(z.number()),
    /** Fetched per minute over the same readings (what piles up while nothing is sent). */
    fetchedPerMinute: z.optional(z.number()),
  }),
);

/** DESIGN.md: the `Pipe State Changed` detail plus the notice's own fields. */
export const pipeNotice = z.object({
  subject: z.literal('pipe'),
  ...noticeCore,
  kind: z.enum(PIPE_NOTICE_KINDS),
  organizationId: z.string(),
  serviceId: z.string(),
  pipeId: z.string(),
  pipeName: z.string(),
  /** The condition told (`health`, `progress`, `errors`, ...): a reminder or recovery names it. */
  condition: z.optional(z.string()),
  /** `clickpipe_source` or the listing's source member (kafka, s3, postgres, ...). */
  sourceKind: z.optional(z.string()),
  progress: z.optional(progress),
});
export type PipeNotice = z.infer<typeof pipeNotice>;

/**
 * One condition per pipe for its health (a problem announced, reminded, recovered), and one
 * each for being gone and for restart attempts, which no recovery closes.
 */
export function pipeDedupKey(
  ids: { organizationId: string; serviceId: string; pipeId: string },
  kind: string,
): string {
  const condition = kind === 'gone' || kind === 'restart' ? kind : 'health';
  return pipeConditionKey(ids, condition);
}

/** The dedup key of one condition of a pipe (`progress` and `errors` are followed apart). */
export function pipeConditionKey(
  ids: { organizationId: string; serviceId: string; pipeId: string },
  condition: string,
): string {
  return `pipe/${ids.organizationId}/${ids.serviceId}/${ids.pipeId}/${condition}`;
}

/**
 * The event's documented detail fields, plus what explains the notice (all optional, so a
 * consumer reading the documented ones is unaffected); the notice's ledger fields stay internal.
 */
const eventDetail = z.lazy(() =>
  z.object({
    ...pipeStateChangedDetail.shape,
    since: z.optional(z.string()),
    condition: z.optional(z.string()),
    sourceKind: z.optional(z.string()),
    progress: z.optional(progress),
  }),
);

export function pipeEventDetail(
  n: Omit<PipeStateChangedDetail, 'pipeId' | 'pipeName'> & { pipeId?: string; pipeName?: string },
): PipeStateChangedDetail {
  return eventDetail.parse({ pipeId: '', pipeName: '', ...n });
}

/** `ClickPipes_SentEvents_Total: 1200 at <t1> → 1200 at <t2> (0/min; fetched 50/min)`. */
function progressText(p: NonNullable<PipeNotice['progress']>): string {
  const readings = p.readings.map((r) => `${r.value} at ${r.at}`).join(' → ');
  const rates = [
    ...(p.ratePerMinute === undefined ? [] : [`${p.ratePerMinute}/min`]),
    ...(p.fetchedPerMinute === undefined ? [] : [`fetched ${p.fetchedPerMinute}/min`]),
  ];
  return `${p.metric}: ${readings}${rates.length ? ` (${rates.join('; ')})` : ''}`;
}

function renderPipeNotice(n: PipeNotice): RenderedNotice {
  const facts: Fact[] = [
    { label: 'State change', from: n.from, to: n.to },
    { label: 'Pipe', id: n.pipeId, name: n.pipeName },
    { label: 'Service', id: n.serviceId },
    { label: 'Since', time: n.since },
  ];
  if (n.sourceKind) facts.push({ label: 'Source', text: n.sourceKind });
  if (n.progress) facts.push({ label: 'Progress', text: progressText(n.progress) });
  const hint = pipeHint(n);
  return {
    title: titleOf(n, `pipe ${n.pipeName}`),
    facts,
    ...(hint ? { hint } : {}),
    link: {
      label: 'Open pipe',
      fields: { organizationId: n.organizationId, serviceId: n.serviceId, pipeId: n.pipeId },
    },
    origin: { source: n.serviceId, component: n.pipeName, group: n.organizationId },
    routing: {
      pipeId: n.pipeId,
      pipeName: n.pipeName,
      ...(n.sourceKind ? { sourceKind: n.sourceKind } : {}),
    },
    event: { type: PIPE_STATE_CHANGED, detail: pipeEventDetail(n) },
    attributes: {
      severity: n.severity,
      kind: n.kind,
      subject: n.subject,
      serviceId: n.serviceId,
      pipeId: n.pipeId,
    },
  };
}

export const pipeRenderer: SubjectRenderer<PipeNotice> = {
  subject: 'pipe',
  render: renderPipeNotice,
};
