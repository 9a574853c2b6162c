/**
 * A finding of the key audit (the key sentinel): a key of the organization, or a key secret of
 * ours, worth fixing; told once when found, reminded by policy, and once more when it is gone.
 * Never carries key material.
 */
import * as z from 'zod/mini';
import { noticeCore, type Fact, type RenderedNotice } from '../notice';
import { noticeSet, type SubjectRenderer } from '../notices';

const KEY_FINDING = 'API Key Audit Finding';

const keyNotice = z.object({
  // An enum of one (not z.literal): the sentinel's bundle has enums, and no other literal.
  subject: z.enum(['key']),
  ...noticeCore,
  kind: z.enum(['finding', 'reminder', 'resolved']),
  /** What the audit checked: never-expires, unused, rotation-overdue, ... */
  check: z.string(),
  /** The finding's own severity; `severity` is the notifiers' (high = critical). */
  level: z.enum(['low', 'medium', 'high']),
  keyRecordId: z.optional(z.string()),
  keyName: z.optional(z.string()),
  keySuffix: z.optional(z.string()),
  secretId: z.optional(z.string()),
  /** What to do about it. */
  action: z.string(),
});
export type KeyNotice = z.infer<typeof keyNotice>;

/** One audit finding's condition: its notice, reminders and resolution share it. */
export const keyFindingDedupKey = (findingId: string) => `key/${findingId}`;

const secretName = (secretId: string) => secretId.split(':secret:').pop() ?? secretId;

function renderKeyNotice(n: KeyNotice): RenderedNotice {
  // ASCII only: an SNS subject takes no other characters.
  const about = n.keyName
    ? `${n.keyName} (...${n.keySuffix ?? ''})`
    : n.secretId
      ? secretName(n.secretId)
      : '';
  const what = n.kind === 'resolved' ? 'resolved' : n.kind === 'reminder' ? 'still open' : n.level;
  const facts: Fact[] = [
    { label: 'Check', text: n.check },
    ...(n.keyRecordId ? [{ label: 'Key', id: n.keyRecordId, name: about }] : []),
    ...(n.secretId ? [{ label: 'Secret', id: secretName(n.secretId) }] : []),
    { label: 'Found', time: n.since },
  ];
  return {
    // Titles stop at 100 characters (an SNS subject's limit).
    title: `[${n.severity.toUpperCase()}] API key ${n.check} ${what}: ${about}`.slice(0, 100),
    facts,
    // What to do is the notice's first check: every notifier shows it as such.
    ...(n.kind === 'resolved' ? {} : { hint: n.action }),
    origin: {
      source: n.secretId ? secretName(n.secretId) : "the organization's API keys",
      ...(about ? { component: about } : {}),
    },
    event: { type: KEY_FINDING, detail: n },
    attributes: {
      severity: n.severity,
      kind: n.kind,
      subject: n.subject,
      check: n.check,
      level: n.level,
    },
  };
}

/** The key sentinel's notices: its findings alone. */
const keyRenderer: SubjectRenderer<KeyNotice> = { subject: 'key', render: renderKeyNotice };

export const KEY_NOTICES = noticeSet(() => keyNotice, [keyRenderer]);
