/**
 * A management key close to expiry, expired, or never expiring (the key sentinel): its
 * rotation is stuck or has never run. Never carries key material.
 */
import * as z from 'zod';
import { noticeCore, type RenderedNotice } from '../notice';

const KEY_EXPIRY_WARNED = 'API Key Expiry Warning';

export const keyNotice = z.object({
  subject: z.literal('key'),
  ...noticeCore,
  kind: z.literal('key-expiry'),
  secretId: z.string(),
  status: z.enum(['expiring', 'expired', 'no-expiry']),
  /** ISO time the key expires, or null (never). */
  expireAt: z.string().nullable(),
  /** Days left (negative once expired); null when the key never expires. */
  daysLeft: z.number().nullable(),
  keySuffix: z.string(),
  /** Where expireAt was read: the key's record on the service (the truth) or the secret value. */
  source: z.enum(['key-record', 'secret-value']),
});
export type KeyNotice = z.infer<typeof keyNotice>;

export const keyExpiryDedupKey = (secretId: string) => `key/${secretId}/expiry`;

export function renderKeyNotice(n: KeyNotice): RenderedNotice {
  // Titles stop at 100 characters: name the secret, not its whole ARN.
  const secret = n.secretId.split(':secret:').pop() ?? n.secretId;
  return {
    title: `[${n.severity.toUpperCase()}] API key ${n.status}: ${secret}`.slice(0, 100),
    facts: [
      { label: 'Secret', id: secret },
      { label: 'Key', text: `…${n.keySuffix}` },
      n.expireAt === null
        ? { label: 'Expires', text: 'never' }
        : { label: 'Expires', time: n.expireAt },
      { label: 'Read from', text: n.source },
    ],
    hint:
      n.status === 'no-expiry'
        ? `a key that never expires was never rotated by cloudops: rotate it (\`cloudops keys rotate --secret-id ${n.secretId}\`)`
        : `its rotation is stuck: check the rotation function's log, then \`cloudops keys rotate --secret-id ${n.secretId}\``,
    origin: { source: secret, component: `key …${n.keySuffix}` },
    event: { type: KEY_EXPIRY_WARNED, detail: n },
    attributes: { severity: n.severity, kind: n.kind, subject: n.subject, status: n.status },
  };
}
