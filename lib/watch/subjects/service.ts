/**
 * A watched service's notice: the watchdog could not list its pipes M runs in a row (and
 * can again), or it went idle (scaled to zero) and came back.
 */
import * as z from 'zod/mini';
import { PIPE_STATE_CHANGED } from '../../events/names';
import { noticeCore, titleOf, type RenderedNotice } from '../notice';
import type { SubjectRenderer } from '../notices';
import { pipeEventDetail } from './pipe';

const SERVICE_NOTICE_KINDS = ['watchdog', 'recovery', 'idle', 'active'] as const;

export const serviceNotice = z.object({
  subject: z.literal('service'),
  ...noticeCore,
  kind: z.enum(SERVICE_NOTICE_KINDS),
  organizationId: z.string(),
  serviceId: z.string(),
});
export type ServiceNotice = z.infer<typeof serviceNotice>;

/** Two conditions per service: its pipes cannot be listed (watchdog → recovery); idle → active. */
export function serviceDedupKey(
  ids: { organizationId: string; serviceId: string },
  kind: string,
): string {
  const condition = kind === 'idle' || kind === 'active' ? 'idle' : 'listing';
  return `service/${ids.organizationId}/${ids.serviceId}/${condition}`;
}

function renderServiceNotice(n: ServiceNotice): RenderedNotice {
  return {
    title: titleOf(n, `service ${n.serviceId}`),
    facts: [
      ...(n.from || n.to ? [{ label: 'State change', from: n.from, to: n.to }] : []),
      { label: 'Service', id: n.serviceId },
      { label: 'Since', time: n.since },
    ],
    ...(n.kind === 'watchdog'
      ? {
          hint: "the watchdog cannot list this service's pipes: check its key and the service id (`cloudops doctor`)",
        }
      : {}),
    link: {
      label: 'Open service',
      fields: { organizationId: n.organizationId, serviceId: n.serviceId, pipeId: '' },
    },
    origin: { source: n.serviceId, group: n.organizationId },
    // Consumers match the watchdog's events by this type: a service's notice keeps it, no pipe.
    event: { type: PIPE_STATE_CHANGED, detail: pipeEventDetail(n) },
    attributes: { severity: n.severity, kind: n.kind, subject: n.subject, serviceId: n.serviceId },
  };
}

export const serviceRenderer: SubjectRenderer<ServiceNotice> = {
  subject: 'service',
  render: renderServiceNotice,
};
