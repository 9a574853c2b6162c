/** The key sentinel's decisions and `keys revoke`'s plan, both pure. */
import { describe, expect, it } from 'vitest';
import {
  decideFindingNotices,
  keyNameFor,
  ownedNamePrefix,
  planRevoke,
  type AuditRecord,
  type KeyFinding,
  type ManagedSecret,
} from '../../../lib/keys';
import type { KeyRecord } from '../../../lib/schemas';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 26, 12);
const WEEK = { reminderMs: { high: 7 * DAY, medium: 7 * DAY } };
const ALL = { keys: true };

const finding = (check: KeyFinding['check'], severity: KeyFinding['severity'], id = 'k1') => ({
  id: `${check}/${id}`,
  check,
  severity,
  key: { id, name: `name-${id}`, suffix: 'AbCd' },
  message: `key name-${id} (…AbCd) ${check}`,
  action: 'do something',
});

/** Runs the decision and stores the result as the engine would (version bumped). */
function step(
  previous: AuditRecord | undefined,
  findings: KeyFinding[],
  at: number,
  coverage = ALL,
) {
  const { next, notices } = decideFindingNotices(previous, findings, coverage, at, WEEK);
  return { record: { ...next, version: (previous?.version ?? -1) + 1 }, notices };
}
const kinds = (notices: { kind: string; check: string }[]) =>
  notices.map((n) => `${n.kind}:${n.check}`);

describe('the key sentinel tells each finding once, reminds by policy, tells its end', () => {
  it('new findings are told once; unchanged ones are quiet until their reminder', () => {
    const first = step(
      undefined,
      [finding('never-expires', 'high'), finding('admin-role', 'low')],
      NOW,
    );
    expect(kinds(first.notices)).toEqual(['finding:never-expires', 'finding:admin-role']);
    expect(first.notices[0]).toMatchObject({
      subject: 'key',
      severity: 'critical',
      level: 'high',
      dedupKey: 'key/never-expires/k1',
      resolves: false,
      keyRecordId: 'k1',
    });
    const again = step(
      first.record,
      [finding('never-expires', 'high'), finding('admin-role', 'low')],
      NOW + DAY,
    );
    expect(again.notices).toEqual([]);
    const week = step(
      again.record,
      [finding('never-expires', 'high'), finding('admin-role', 'low')],
      NOW + 7 * DAY,
    );
    // High is reminded after 7 days; low never is.
    expect(kinds(week.notices)).toEqual(['reminder:never-expires']);
    expect(week.notices[0].since).toBe(new Date(NOW).toISOString());
    const next = step(week.record, [finding('never-expires', 'high')], NOW + 8 * DAY);
    expect(next.notices.map((n) => [n.kind, n.check, n.resolves, n.severity])).toEqual([
      ['resolved', 'admin-role', true, 'info'],
    ]);
    expect(next.notices[0].message).toBe('resolved: key name-k1 (…AbCd) admin-role');
  });

  it('a finding whose severity moves is told again as a finding', () => {
    const first = step(undefined, [finding('unused', 'medium')], NOW);
    const worse = step(first.record, [finding('unused', 'high')], NOW + DAY);
    expect(worse.notices.map((n) => [n.kind, n.level])).toEqual([['finding', 'high']]);
  });

  it('without the key list, key findings are kept open (not resolved by not being looked for)', () => {
    const first = step(undefined, [finding('unused', 'medium')], NOW);
    const blind = step(first.record, [], NOW + DAY, { keys: false });
    expect(blind.notices).toEqual([]);
    expect(Object.keys(blind.record.findings)).toEqual(['unused/k1']);
    const seen = step(blind.record, [], NOW + 2 * DAY);
    expect(kinds(seen.notices)).toEqual(['resolved:unused']);
  });

  it('without the key list, a secret whose key is missing stays open (no resolved, then new again)', () => {
    const missing = {
      id: 'key-missing/secret:sync',
      check: 'key-missing' as const,
      severity: 'high' as const,
      secretId: 'cloudops/sync-key',
      message: 'holds key …AbCd, which the service no longer has (deleted?)',
      action: 'make a key in the console, then cloudops keys adopt',
    };
    const first = step(undefined, [missing], NOW);
    const blind = step(first.record, [], NOW + DAY, { keys: false });
    expect(blind.notices).toEqual([]);
    const seen = step(blind.record, [missing], NOW + 2 * DAY);
    expect(seen.notices).toEqual([]);
  });
});

const ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:cloudops/sync-key-AbCdEf';
const PREFIX = 'cloudops-rotated-';
const record = (fields: Partial<KeyRecord>): KeyRecord => ({
  id: '00000000-0000-4000-8000-000000000001',
  name: 'reporting',
  roles: ['developer'],
  keySuffix: 'WXYZ',
  expireAt: null,
  state: 'enabled',
  ...fields,
});
const ours: ManagedSecret = {
  secretId: ARN,
  name: 'cloudops/sync-key',
  rotationEnabled: true,
  seeded: true,
  key: { keyRecordId: '00000000-0000-4000-8000-0000000000aa', keySuffix: 'CURR', expireAt: null },
};
const context = (records: KeyRecord[]) => ({
  records,
  secrets: [ours],
  namePrefix: PREFIX,
  now: NOW,
  selfSuffix: 'SELF',
});

describe('keys revoke plans before it writes', () => {
  it('disables with the expiry cut to the grace (never lengthened), deletes at grace 0', () => {
    const target = record({});
    const plan = planRevoke(
      { keyRecordId: target.id, graceMs: 7 * DAY, force: false },
      context([target]),
    );
    expect(plan).toEqual({
      action: 'disable',
      record: target,
      expireAt: new Date(NOW + 7 * DAY).toISOString(),
    });
    const soon = record({ expireAt: new Date(NOW + DAY).toISOString() });
    expect(
      planRevoke({ keyRecordId: soon.id, graceMs: 7 * DAY, force: false }, context([soon])),
    ).toMatchObject({ action: 'disable', expireAt: soon.expireAt });
    expect(
      planRevoke({ keyRecordId: target.id, graceMs: 0, force: false }, context([target])).action,
    ).toBe('delete');
  });

  it('after the grace a second revoke deletes; within it, it changes nothing', () => {
    const revoked = record({ state: 'disabled', expireAt: new Date(NOW + 2 * DAY).toISOString() });
    expect(
      planRevoke({ keyRecordId: revoked.id, graceMs: 7 * DAY, force: false }, context([revoked]))
        .action,
    ).toBe('nothing');
    const past = record({ state: 'disabled', expireAt: new Date(NOW - DAY).toISOString() });
    expect(
      planRevoke({ keyRecordId: past.id, graceMs: 7 * DAY, force: false }, context([past])),
    ).toMatchObject({ action: 'delete', reason: 'disabled and past its grace' });
  });

  it("refuses another deployment's key and one of our secrets' current key unless forced", () => {
    const foreign = record({
      name: keyNameFor(ownedNamePrefix(PREFIX, `${ARN}-other`), NOW - DAY),
    });
    const request = { keyRecordId: foreign.id, graceMs: DAY, force: false };
    expect(() => planRevoke(request, context([foreign]))).toThrow(
      /is rotated by another deployment \(cloudops-rotated-[0-9a-f]{10}-…\).*give --force/,
    );
    expect(planRevoke({ ...request, force: true }, context([foreign])).action).toBe('disable');
    const current = record({ id: ours.key!.keyRecordId, keySuffix: 'CURR' });
    expect(() =>
      planRevoke({ keyRecordId: current.id, graceMs: DAY, force: false }, context([current])),
    ).toThrow(/is the current key of cloudops\/sync-key: rotate that secret instead/);
  });

  it('refuses the key it runs with, and an id no key has', () => {
    const self = record({ keySuffix: 'SELF' });
    expect(() =>
      planRevoke({ keyRecordId: self.id, graceMs: DAY, force: true }, context([self])),
    ).toThrow(/is the key this command runs with/);
    expect(() =>
      planRevoke({ keyRecordId: 'nope', graceMs: DAY, force: false }, context([self])),
    ).toThrow(/no key has the record id nope; `cloudops keys list` shows every key's id/);
  });
});
