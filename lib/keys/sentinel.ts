/**
 * The key sentinel's decisions, pure: which of today's audit findings are new (told once), which
 * are due a reminder (high and medium, by policy; low ones are told once), and which are gone
 * (told once as resolved). The record keeps each open finding with what it said, so a resolved
 * notice still names a key that no longer exists.
 */
import * as z from 'zod/mini';
import { safeInteger, stringRecord } from '../schemas/builders';
import { pendingDeliveryOf } from '../watch/ledger';
import type { Severity } from '../watch/notice';
import { KEY_NOTICES, keyFindingDedupKey, type KeyNotice } from '../watch/subjects/key';
import { SEVERITIES, type FindingSeverity, type KeyFinding } from './audit';

const openFinding = z.lazy(() =>
  z.object({
    check: z.string(),
    level: z.enum(SEVERITIES),
    message: z.string(),
    action: z.string(),
    keyRecordId: z.optional(z.string()),
    keyName: z.optional(z.string()),
    keySuffix: z.optional(z.string()),
    secretId: z.optional(z.string()),
    /** When it was first found, and last told (ms epoch). */
    since: z.number(),
    lastNotifiedAt: z.number(),
  }),
);
type OpenFinding = z.output<typeof openFinding>;

/** The sentinel's one record in the watch store: every open finding by its id. */
export const auditRecord = z.lazy(() =>
  z.object({
    findings: z._default(stringRecord(z.string(), openFinding), {}),
    pending: z._default(z.array(pendingDeliveryOf(KEY_NOTICES.schema)), []),
    version: z.number().check(safeInteger(), z.nonnegative()),
  }),
);
export type AuditRecord = z.output<typeof auditRecord>;

export interface ReminderPolicy {
  /** Remind a finding of this level this long after it was last told; absent: never. */
  reminderMs: Partial<Record<FindingSeverity, number>>;
}

/** What the audit could see: findings it could not look for are not resolved by their absence. */
export interface AuditCoverage {
  /** The key list was read (key findings are complete). */
  keys: boolean;
}

const NOTIFIER_SEVERITY: Record<FindingSeverity, Severity> = {
  high: 'critical',
  medium: 'warning',
  low: 'info',
};

export function decideFindingNotices(
  previous: AuditRecord | undefined,
  findings: readonly KeyFinding[],
  coverage: AuditCoverage,
  now: number,
  policy: ReminderPolicy,
): { next: AuditRecord; notices: KeyNotice[] } {
  const before = previous?.findings ?? {};
  const open: Record<string, OpenFinding> = {};
  const notices: KeyNotice[] = [];
  for (const finding of findings) {
    const known = before[finding.id];
    const fresh = openFrom(finding, known?.since ?? now, known?.lastNotifiedAt ?? now);
    if (!known || known.level !== finding.severity) {
      // New, or its severity moved: told as a finding (again).
      open[finding.id] = { ...fresh, lastNotifiedAt: now };
      notices.push(noticeOf(finding.id, open[finding.id], 'finding', now));
      continue;
    }
    const every = policy.reminderMs[finding.severity];
    if (every !== undefined && now - known.lastNotifiedAt >= every) {
      open[finding.id] = { ...fresh, lastNotifiedAt: now };
      notices.push(noticeOf(finding.id, open[finding.id], 'reminder', now));
    } else open[finding.id] = fresh;
  }
  for (const [id, gone] of Object.entries(before)) {
    if (open[id]) continue;
    // Not looked for this time (the key list could not be read): still open, not resolved.
    if (!coverage.keys && needsKeyList(gone)) open[id] = gone;
    else notices.push(noticeOf(id, gone, 'resolved', now));
  }
  return {
    next: { findings: open, pending: [], version: previous?.version ?? 0 },
    notices,
  };
}

/** A finding only the key list can make: a key's own, or a secret whose key the list lacks. */
const needsKeyList = (f: OpenFinding) => f.keyRecordId !== undefined || f.check === 'key-missing';

function openFrom(finding: KeyFinding, since: number, lastNotifiedAt: number): OpenFinding {
  return {
    check: finding.check,
    level: finding.severity,
    message: finding.message,
    action: finding.action,
    ...(finding.key
      ? { keyRecordId: finding.key.id, keyName: finding.key.name, keySuffix: finding.key.suffix }
      : {}),
    ...(finding.secretId ? { secretId: finding.secretId } : {}),
    since,
    lastNotifiedAt,
  };
}

function noticeOf(
  findingId: string,
  finding: OpenFinding,
  kind: KeyNotice['kind'],
  now: number,
): KeyNotice {
  const { since, lastNotifiedAt: _told, level, message, ...about } = finding;
  return {
    subject: 'key',
    id: `${keyFindingDedupKey(findingId)}/${kind}/${now}`,
    dedupKey: keyFindingDedupKey(findingId),
    resolves: kind === 'resolved',
    kind,
    level,
    severity: kind === 'resolved' ? 'info' : NOTIFIER_SEVERITY[level],
    from: kind === 'resolved' ? level : '',
    to: kind === 'resolved' ? '' : level,
    at: new Date(now).toISOString(),
    since: new Date(since).toISOString(),
    message: kind === 'resolved' ? `resolved: ${message}` : message,
    ...about,
  };
}
