/** The pipe watchdog's notices: about pipes, and about the services it watches. */
import * as z from 'zod/mini';
import { noticeSet } from '../notices';
import { pipeDedupKey, pipeNotice, pipeRenderer } from './pipe';
import { serviceDedupKey, serviceNotice, serviceRenderer } from './service';

/**
 * Notices stored before subjects existed (pending deliveries a deployed watchdog wrote) were
 * pipe-shaped: a service's had pipeId ''. Read as the notice they were, so they are still
 * delivered once.
 */
function fromPipeShaped(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || 'subject' in value) return value;
  const { organizationId, serviceId, pipeId, pipeName, ...rest } = value as Record<
    string,
    string | undefined
  >;
  const kind = String(rest.kind);
  const core = { ...rest, resolves: kind === 'recovery' || kind === 'active' };
  const ids = { organizationId: String(organizationId), serviceId: String(serviceId) };
  if (pipeId === '')
    return { ...core, ...ids, subject: 'service', dedupKey: serviceDedupKey(ids, kind) };
  const pipe = { ...ids, pipeId: String(pipeId) };
  return { ...core, ...pipe, pipeName, subject: 'pipe', dedupKey: pipeDedupKey(pipe, kind) };
}

export const WATCHDOG_NOTICES = noticeSet(
  () =>
    z.pipe(
      z.transform(fromPipeShaped),
      z.discriminatedUnion('subject', [pipeNotice, serviceNotice]),
    ),
  [pipeRenderer, serviceRenderer],
);
