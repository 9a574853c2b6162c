/**
 * A deployment's dashboards drifting from their files (the scheduled sync in report mode):
 * the drift, reminders while it lasts, and its end.
 */
import * as z from 'zod/mini';
import { CONDITION_KINDS } from '../condition';
import { noticeCore, titleOf, type RenderedNotice } from '../notice';
import { noticeSet, type SubjectRenderer } from '../notices';

/** The `detail-type` of a drift notice on EventBridge, and the webhook's `type`. */
const DASHBOARDS_DRIFTED = 'Dashboards Drifted';

const dashboardsNotice = z.object({
  subject: z.literal('dashboards'),
  ...noticeCore,
  kind: z.enum(CONDITION_KINDS),
  /** The deployment's dashboard owner. */
  owner: z.string(),
  /** Where the files are (`s3://bucket/prefix/`). */
  source: z.string(),
  /** The plan, in markdown, while they differ. */
  markdown: z.optional(z.string()),
});
export type DashboardsNotice = z.infer<typeof dashboardsNotice>;

/** One condition per owner: its dashboards differ from their files. */
export const driftDedupKey = (owner: string) => `dashboards/${owner}/drift`;

function renderDashboardsNotice(n: DashboardsNotice): RenderedNotice {
  return {
    title: titleOf(n, `dashboards of ${n.owner}`),
    facts: [
      { label: 'State change', from: n.from, to: n.to },
      ...(n.source ? [{ label: 'Files', text: n.source }] : []),
      { label: 'Since', time: n.since },
    ],
    ...(n.markdown ? { details: n.markdown } : {}),
    ...(n.resolves || n.severity === 'info'
      ? {}
      : {
          hint: 'a dashboard was changed outside its files: review the plan, then apply the files (`cloudops dashboards apply`) or copy the change into them',
        }),
    origin: { source: `dashboards of ${n.owner}`, ...(n.source ? { component: n.source } : {}) },
    event: { type: DASHBOARDS_DRIFTED, detail: n },
    attributes: { severity: n.severity, kind: n.kind, subject: n.subject, owner: n.owner },
  };
}

/**
 * A drift notice stored before subjects existed posed as a pipe's (`about: 'dashboards'`, the
 * owner as serviceId): read as the notice it was, so it is still delivered once.
 */
function fromDriftShaped(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || 'subject' in value) return value;
  const {
    about,
    organizationId: _o,
    serviceId,
    pipeId: _p,
    pipeName: _n,
    ...rest
  } = value as Record<string, unknown>;
  if (about !== 'dashboards') return value;
  return {
    ...rest,
    subject: 'dashboards',
    resolves: rest.kind === 'recovery',
    owner: serviceId,
    source: '',
    dedupKey: driftDedupKey(String(serviceId)),
  };
}

/** The drift report's notices (the sync in report mode). */
const dashboardsRenderer: SubjectRenderer<DashboardsNotice> = {
  subject: 'dashboards',
  render: renderDashboardsNotice,
};

export const DASHBOARDS_NOTICES = noticeSet(
  () => z.pipe(z.transform(fromDriftShaped), dashboardsNotice),
  [dashboardsRenderer],
);
