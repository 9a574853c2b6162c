/**
 * Each watcher reads and renders the notices of its own subjects; notices stored before
 * subjects existed (pending deliveries in a deployed table or state file) are read as the
 * notices they were, so they are still delivered once, correctly.
 */
import { describe, expect, it } from 'vitest';
import { pendingDeliveryOf } from '../../../lib/watch/ledger';
import type { Notice } from '../../../lib/watch/notice';
import type { ZodMiniType } from 'zod/mini';
import { DASHBOARDS_NOTICES } from '../../../lib/watch/subjects/dashboards';
import { KEY_NOTICES } from '../../../lib/watch/subjects/key';
import { WATCHDOG_NOTICES } from '../../../lib/watch/subjects/watchdog';
import { driftNotice, failedPipeNotice } from '../../support/notices';

const old = {
  kind: 'transition',
  severity: 'critical',
  organizationId: 'org',
  serviceId: 'svc',
  pipeId: 'p1',
  pipeName: 'orders',
  from: 'Running',
  to: 'Failed',
  at: '2026-01-01T00:00:00.000Z',
  since: '2026-01-01T00:00:00.000Z',
  message: 'Pipe orders went from Running to Failed',
};
const readWith = (set: { schema: ZodMiniType<Notice> }) => (notification: object) =>
  pendingDeliveryOf(set.schema).parse({ notification, remaining: ['sns'], attempts: 1 })
    .notification;
const read = readWith(WATCHDOG_NOTICES);

describe('a pipe-shaped notice from before subjects', () => {
  it("a pipe's is a pipe notice on its health condition", () => {
    expect(read({ ...old, id: 'org/svc/p1/transition/1' })).toEqual({
      ...old,
      id: 'org/svc/p1/transition/1',
      subject: 'pipe',
      dedupKey: 'pipe/org/svc/p1/health',
      resolves: false,
    });
    expect(read({ ...old, id: 'r', kind: 'recovery', severity: 'info' })).toMatchObject({
      dedupKey: 'pipe/org/svc/p1/health',
      resolves: true,
    });
  });

  it("a service's (no pipe id) is a service notice", () => {
    const { pipeId: _p, pipeName: _n, ...rest } = old;
    expect(
      read({ ...old, id: 's', pipeId: '', pipeName: '', kind: 'idle', severity: 'info' }),
    ).toEqual({
      ...rest,
      id: 's',
      kind: 'idle',
      severity: 'info',
      subject: 'service',
      dedupKey: 'service/org/svc/idle',
      resolves: false,
    });
  });

  it("a drift's (posing as a pipe) is a dashboards notice of its owner, with its plan", () => {
    const drift = {
      ...old,
      id: 'dashboards/prod/drift/transition/1',
      organizationId: 'dashboards',
      serviceId: 'prod',
      pipeId: 'drift',
      pipeName: 'dashboards of prod',
      severity: 'warning',
      from: 'InSync',
      to: 'Drifted',
      about: 'dashboards',
      markdown: '```diff\n~ x\n```',
    };
    expect(readWith(DASHBOARDS_NOTICES)(drift)).toEqual({
      subject: 'dashboards',
      id: drift.id,
      dedupKey: 'dashboards/prod/drift',
      resolves: false,
      kind: 'transition',
      severity: 'warning',
      from: 'InSync',
      to: 'Drifted',
      at: old.at,
      since: old.since,
      message: old.message,
      owner: 'prod',
      source: '',
      markdown: drift.markdown,
    });
  });

  it('a notice of today is read as it is; a broken one names the field', () => {
    const today = read({ ...old, id: 'x' });
    expect(read(today)).toEqual(today);
    expect(() => read({ ...old, id: 'x', kind: 'exploded' })).toThrow(/kind/);
  });
});

const keyFinding = {
  subject: 'key',
  id: 'key/f1/finding/1',
  dedupKey: 'key/f1',
  resolves: false,
  kind: 'finding',
  severity: 'critical',
  from: '',
  to: 'high',
  at: '2026-01-01T00:00:00.000Z',
  since: '2026-01-01T00:00:00.000Z',
  message: 'key k never expires',
  check: 'never-expires',
  level: 'high',
  action: 'set an expiry',
};

describe("a watcher's notices are its own subjects'", () => {
  it("each set reads its subjects and refuses another watcher's, naming the subject", () => {
    expect(readWith(KEY_NOTICES)(keyFinding)).toEqual(keyFinding);
    expect(() => readWith(KEY_NOTICES)(failedPipeNotice())).toThrow(/subject/);
    expect(() => read(keyFinding)).toThrow(/subject/);
    expect(() => readWith(DASHBOARDS_NOTICES)(failedPipeNotice())).toThrow(/subject/);
    expect(readWith(DASHBOARDS_NOTICES)(driftNotice())).toEqual(driftNotice());
  });

  it('renders its subjects, and says so for a notice of another subject', () => {
    expect(WATCHDOG_NOTICES.render(failedPipeNotice()).title).toBe(
      '[CRITICAL] pipe orders transition: Running -> Failed',
    );
    expect(KEY_NOTICES.render(keyFinding as Notice).title).toBe(
      '[CRITICAL] API key never-expires high: ',
    );
    expect(() => KEY_NOTICES.render(failedPipeNotice())).toThrow(
      'no renderer for a notice of subject pipe',
    );
    expect(() => WATCHDOG_NOTICES.render(driftNotice())).toThrow(/subject dashboards/);
  });
});
