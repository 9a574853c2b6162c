import { describe, expect, it } from 'vitest';
import { claimPending, newPending, sendClaimed, settlePending } from '../../../lib/pipes/deliver';
import type { Notifier } from '../../../lib/notify/types';
import type { PendingDelivery, PipeNotification } from '../../../lib/pipes/types';
import { silentLogger } from '../../../lib/log';

const note = (id: string): PipeNotification => ({
  id,
  kind: 'transition',
  severity: 'critical',
  organizationId: 'o',
  serviceId: 's',
  pipeId: 'p',
  pipeName: 'n',
  from: 'Running',
  to: 'Failed',
  at: '2025-01-01T00:00:00.000Z',
  since: '2025-01-01T00:00:00.000Z',
  message: 'm',
});
const notifier = (name: string, fail = false): Notifier & { got: string[] } => {
  const got: string[] = [];
  return {
    name,
    got,
    send: (n) =>
      fail ? Promise.reject(new Error(`${name} down`)) : (got.push(n.id), Promise.resolve()),
  };
};

describe('pending deliveries', () => {
  it('claims released and expired entries, leaves a live claim of another run alone', () => {
    const pending: PendingDelivery[] = [
      { notification: note('released'), remaining: ['a'], attempts: 1 },
      {
        notification: note('live'),
        remaining: ['a'],
        claimedBy: 'other',
        claimedAt: 1_000,
        attempts: 0,
      },
      {
        notification: note('expired'),
        remaining: ['a'],
        claimedBy: 'crashed',
        claimedAt: 0,
        attempts: 0,
      },
    ];
    const claimed = claimPending(pending, 'me', 5_000, 5_000);
    expect(claimed.map((p) => p.claimedBy)).toEqual(['me', 'other', 'me']);
  });

  it('drops notifiers that are no longer configured', async () => {
    const a = notifier('a');
    const pending = newPending([note('n1')], [a, notifier('removed')], 'me', 0);
    const outcome = await sendClaimed(pending, 'me', [a], silentLogger);
    expect(settlePending(pending, 'me', outcome)).toEqual([]);
  });

  it('sends claimed entries only, to the notifiers still owed; settles per notifier', async () => {
    const [a, b] = [notifier('a'), notifier('b', true)];
    const pending = [
      ...newPending([note('n1')], [a, b], 'me', 0),
      { notification: note('n2'), remaining: ['a'], claimedBy: 'other', claimedAt: 0, attempts: 0 },
    ];
    const outcome = await sendClaimed(pending, 'me', [a, b], silentLogger);
    expect(a.got).toEqual(['n1']);
    expect(outcome.errors).toEqual([{ notificationId: 'n1', notifier: 'b', message: 'b down' }]);
    const settled = settlePending(pending, 'me', outcome);
    expect(settled).toEqual([
      { notification: note('n1'), remaining: ['b'], attempts: 1 }, // released for the next run
      pending[1],
    ]);
  });
});
