/**
 * Every subject's notice: the one union the ledger stores and the notifiers deliver, and the
 * renderer of each subject. A new subject is one file in subjects/ plus one line in each of
 * the two lists below.
 */
import * as z from 'zod/mini';
import type { RenderedNotice } from './notice';
import { dashboardsNotice, driftDedupKey, renderDashboardsNotice } from './subjects/dashboards';
import { keyNotice, renderKeyNotice } from './subjects/key';
import { pipeDedupKey, pipeNotice, renderPipeNotice } from './subjects/pipe';
import { renderServiceNotice, serviceDedupKey, serviceNotice } from './subjects/service';

const anyNotice = z.discriminatedUnion('subject', [
  pipeNotice,
  serviceNotice,
  dashboardsNotice,
  keyNotice,
]);
export type Notice = z.infer<typeof anyNotice>;
export type Subject = Notice['subject'];
/** Every subject's name (a route may name them). */
export const SUBJECTS = anyNotice.def.options.map((o) => o.shape.subject.def.values[0]) as [
  Subject,
  ...Subject[],
];

const renderers: { [S in Subject]: (n: Extract<Notice, { subject: S }>) => RenderedNotice } = {
  pipe: renderPipeNotice,
  service: renderServiceNotice,
  dashboards: renderDashboardsNotice,
  key: renderKeyNotice,
};

export function renderNotice(n: Notice): RenderedNotice {
  return (renderers[n.subject] as (n: Notice) => RenderedNotice)(n);
}

/**
 * Notices stored before subjects existed (pending deliveries a deployed watchdog wrote) were
 * all pipe-shaped: a service's had pipeId '', a drift's `about: 'dashboards'` with the owner
 * as serviceId. Read as the notice they were, so they are still delivered once.
 */
function fromPipeShaped(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || 'subject' in value) return value;
  const { about, markdown, organizationId, serviceId, pipeId, pipeName, ...rest } = value as Record<
    string,
    string | undefined
  >;
  const kind = String(rest.kind);
  const core = { ...rest, resolves: rest.kind === 'recovery' || rest.kind === 'active' };
  if (about === 'dashboards')
    return {
      ...core,
      subject: 'dashboards',
      owner: serviceId,
      source: '',
      markdown,
      dedupKey: driftDedupKey(String(serviceId)),
    };
  const ids = { organizationId: String(organizationId), serviceId: String(serviceId) };
  if (pipeId === '')
    return { ...core, ...ids, subject: 'service', dedupKey: serviceDedupKey(ids, kind) };
  const pipe = { ...ids, pipeId: String(pipeId) };
  return { ...core, ...pipe, pipeName, subject: 'pipe', dedupKey: pipeDedupKey(pipe, kind) };
}

/** A stored notice, of any subject (and any age). */
export const notice = z.lazy(() => z.pipe(z.transform(fromPipeShaped), anyNotice));
