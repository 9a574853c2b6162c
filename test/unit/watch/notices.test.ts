/**
 * Notices stored before subjects existed (pending deliveries in a deployed table or state
 * file) are read as the notices they were, so they are still delivered once, correctly.
 */
import { describe, expect, it } from 'vitest';
import { pendingDelivery } from '../../../lib/watch/ledger';

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
const read = (notification: object) =>
  pendingDelivery.parse({ notification, remaining: ['sns'], attempts: 1 }).notification;

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
    expect(read(drift)).toEqual({
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
