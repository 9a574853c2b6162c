import { describe, expect, it } from 'vitest';
import { claimPending, newPending, sendClaimed, settlePending } from '../../../lib/pipes/deliver';
import { NotifyError, type Notifier } from '../../../lib/notify/types';
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
    const outcome = await sendClaimed([pending], 'me', [a], silentLogger);
    expect(settlePending(pending, 'me', outcome)).toEqual([]);
  });

  it('sends claimed entries only, to the notifiers still owed; settles per notifier', async () => {
    const [a, b] = [notifier('a'), notifier('b', true)];
    const pending = [
      ...newPending([note('n1')], [a, b], 'me', 0),
      { notification: note('n2'), remaining: ['a'], claimedBy: 'other', claimedAt: 0, attempts: 0 },
    ];
    const outcome = await sendClaimed([pending], 'me', [a, b], silentLogger);
    expect(a.got).toEqual(['n1']);
    expect(outcome.errors).toEqual([{ notificationId: 'n1', notifier: 'b', message: 'b down' }]);
    const settled = settlePending(pending, 'me', outcome);
    expect(settled).toEqual([
      { notification: note('n1'), remaining: ['b'], attempts: 1 }, // released for the next run
      pending[1],
    ]);
  });

  it('a batching notifier gets every group in one sendBatch; results settle per notification', async () => {
    const calls: string[][] = [];
    const batcher: Notifier = {
      name: 'batch',
      send: () => Promise.reject(new Error('send is not used when sendBatch exists')),
      sendBatch: (list) => {
        calls.push(list.map((x) => x.id));
        return Promise.resolve(
          list.map((x) => (x.id === 'n2' ? new NotifyError('batch', 'entry rejected') : undefined)),
        );
      },
    };
    const single = notifier('single');
    const groups = [
      newPending([note('n1'), note('n2')], [batcher, single], 'me', 0),
      newPending([note('n3')], [batcher, single], 'me', 0),
    ];
    const outcome = await sendClaimed(groups, 'me', [batcher, single], silentLogger);
    expect(calls).toEqual([['n1', 'n2', 'n3']]);
    expect(single.got.sort()).toEqual(['n1', 'n2', 'n3']);
    expect(outcome.errors).toEqual([
      { notificationId: 'n2', notifier: 'batch', message: 'batch: entry rejected' },
    ]);
    expect(settlePending(groups[0], 'me', outcome)).toEqual([
      { notification: note('n2'), remaining: ['batch'], attempts: 1 },
    ]);
    expect(settlePending(groups[1], 'me', outcome)).toEqual([]);
  });

  it('a sendBatch that throws or answers for the wrong number of notifications delivers none', async () => {
    for (const sendBatch of [
      () => Promise.reject(new Error('boom')),
      () => Promise.resolve([undefined]),
    ]) {
      const batcher: Notifier = { name: 'b', send: () => Promise.resolve(), sendBatch };
      const pending = newPending([note('n1'), note('n2')], [batcher], 'me', 0);
      const outcome = await sendClaimed([pending], 'me', [batcher], silentLogger);
      expect(outcome.errors.map((e) => e.notificationId)).toEqual(['n1', 'n2']);
      expect(settlePending(pending, 'me', outcome).map((p) => p.remaining)).toEqual([['b'], ['b']]);
    }
  });

  it('a one-by-one notifier gets each group in order', async () => {
    const order: string[] = [];
    const slow: Notifier = {
      name: 'slow',
      send: async (n) => {
        await new Promise((r) => setTimeout(r, n.id === 'a1' ? 5 : 0));
        order.push(n.id);
      },
    };
    const groups = [
      newPending([note('a1'), note('a2')], [slow], 'me', 0),
      newPending([note('b1')], [slow], 'me', 0),
    ];
    await sendClaimed(groups, 'me', [slow], silentLogger);
    expect(order.filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(order).toHaveLength(3);
  });
});
