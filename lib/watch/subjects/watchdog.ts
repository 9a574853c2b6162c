/** The pipe watchdog's notices: about pipes, and about the services it watches. */
import * as z from 'zod/mini';
import { noticeSet } from '../notices';
import { pipeDedupKey, pipeNotice, pipeRenderer, type PipeNotice } from './pipe';
import { serviceDedupKey, serviceNotice, serviceRenderer, type ServiceNotice } from './service';

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

/**
 * `z.discriminatedUnion('subject', [pipeNotice, serviceNotice])`, same output and issues, as one
 * check: zod's class cost the consumer's bundle 1.3 KiB for two known members.
 */
function bySubject() {
  const members = new Map<string, typeof pipeNotice | typeof serviceNotice>([
    ['pipe', pipeNotice],
    ['service', serviceNotice],
  ]);
  const check: z.core.$ZodCheck<unknown> = z.check<unknown>((payload) => {
    const input = payload.value;
    if (typeof input !== 'object' || input === null) {
      payload.issues.push({ code: 'invalid_type', expected: 'object', input, inst: check });
      return;
    }
    const subject = (input as { subject?: unknown }).subject;
    const member = typeof subject === 'string' ? members.get(subject) : undefined;
    if (!member) {
      payload.issues.push({
        code: 'invalid_union',
        errors: [],
        note: 'No matching discriminator',
        discriminator: 'subject',
        options: [...members.keys()],
        input,
        path: ['subject'],
        inst: check,
      });
      return;
    }
    const parsed = member.safeParse(input);
    if (parsed.success) payload.value = parsed.data;
    // finished issues (their message set), as the member raised them
    else payload.issues.push(...(parsed.error.issues as z.core.$ZodRawIssue[]));
  });
  return z.custom<PipeNotice | ServiceNotice>().check(check);
}

export const WATCHDOG_NOTICES = noticeSet(
  () => z.pipe(z.transform(fromPipeShaped), bySubject()),
  [pipeRenderer, serviceRenderer],
);
