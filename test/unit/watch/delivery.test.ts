import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../lib/log';
import { Claim, type Versioned } from '../../../lib/watch/claims';
import { Delivery } from '../../../lib/watch/delivery';
import {
  boundPending,
  claimPending,
  DEFAULT_DELIVERY_LIMITS,
  deliveryLimitsSchema,
  dropUnknownNotifiers,
  markDelivered,
  newPending,
  releasePending,
  type DeliveryLimits,
  type PendingDelivery,
} from '../../../lib/watch/ledger';
import { NotifyError, type Notifier } from '../../../lib/watch/notifiers/types';
import type { PipeNotice } from '../../../lib/watch/subjects/pipe';

const note = (id: string, at = '2025-01-01T00:00:00.000Z'): PipeNotice => ({
  subject: 'pipe',
  id,
  dedupKey: 'pipe/o/s/p/health',
  resolves: false,
  kind: 'transition',
  severity: 'critical',
  organizationId: 'o',
  serviceId: 's',
  pipeId: 'p',
  pipeName: 'n',
  from: 'Running',
  to: 'Failed',
  at,
  since: at,
  message: 'm',
});
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const notifier = (name: string, fail = false): Notifier & { got: string[] } => {
  const got: string[] = [];
  return {
    name,
    got,
    send: (n) =>
      fail ? Promise.reject(new Error(`${name} down`)) : (got.push(n.id), Promise.resolve()),
  };
};
const limits = (over: Partial<DeliveryLimits> = {}) => ({
  ...deliveryLimitsSchema.parse({}),
  ...over,
});

/** A record in memory, with every stored version kept (what a crash at any point leaves). */
function memoryRecord(pending: PendingDelivery[]) {
  let stored: Versioned = { version: 0, pending };
  const writes: Versioned[] = [];
  const io = {
    save: (r: Versioned) => {
      if (r.version !== stored.version + 1) return Promise.resolve(false);
      stored = structuredClone(r);
      writes.push(stored);
      return Promise.resolve(true);
    },
    reload: () => Promise.resolve(structuredClone(stored)),
  };
  const claim = new Claim(
    's',
    stored,
    io,
    pending.filter((p) => p.claimedBy === 'me'),
  );
  return { claim, writes, stored: () => stored };
}

async function deliver(
  groups: PendingDelivery[][],
  notifiers: Notifier[],
  over: Partial<DeliveryLimits> = {},
) {
  const records = groups.map(memoryRecord);
  const errors: string[] = [];
  const dropped: string[] = [];
  const delivery = new Delivery({
    runId: 'me',
    notifiers,
    limits: limits(over),
    now: () => T0,
    logger: silentLogger,
    onError: (e) => errors.push(`${e.notifier}: ${e.message}`),
    onDropped: (d) => dropped.push(`${d.notification.id} ${d.reason}`),
    onStoreError: (_, m) => errors.push(m),
  });
  delivery.add(records.map((r) => r.claim));
  await delivery.drain();
  return { records, errors, dropped };
}

describe('delivery limits', () => {
  it("a run's defaults are the settings file's defaults; the file's limits stay strict", () => {
    expect(deliveryLimitsSchema.parse({})).toEqual(DEFAULT_DELIVERY_LIMITS);
    expect(DEFAULT_DELIVERY_LIMITS).toEqual({
      notifierTimeoutMs: 10_000,
      maxAttempts: 10,
      maxAgeMs: 24 * 3_600_000,
      maxPending: 50,
    });
    expect(deliveryLimitsSchema.safeParse({ maxAttempt: 3 }).success).toBe(false);
    expect(deliveryLimitsSchema.safeParse({ maxPending: 0 }).success).toBe(false);
  });
});

describe('pending deliveries (pure)', () => {
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

  it('drops notifiers that are no longer configured', () => {
    const pending = newPending([note('n1'), note('n2')], ['a', 'removed'], 'me', 0);
    pending[1].remaining = ['removed'];
    expect(
      dropUnknownNotifiers(pending, ['a']).map((p) => [p.notification.id, p.remaining]),
    ).toEqual([['n1', ['a']]]);
  });

  it('markDelivered strikes one notifier off this run’s entries only; release keeps the rest', () => {
    const pending = [
      ...newPending([note('n1')], ['a', 'b'], 'me', 0),
      { notification: note('n2'), remaining: ['a'], claimedBy: 'other', claimedAt: 0, attempts: 0 },
    ];
    const after = markDelivered(pending, 'me', 'a', new Set(['n1', 'n2']));
    expect(after.map((p) => p.remaining)).toEqual([['b'], ['a']]);
    expect(releasePending(after, 'me')).toEqual([
      { notification: note('n1'), remaining: ['b'], attempts: 1 },
      pending[1],
    ]);
  });

  it('bounds: attempts, age and size; each drop says why', () => {
    const old = '2024-12-30T00:00:00.000Z';
    const pending: PendingDelivery[] = [
      { notification: note('tried'), remaining: ['a'], attempts: 3 },
      { notification: note('old', old), remaining: ['a'], attempts: 0 },
      { notification: note('ok1', '2025-01-01T00:00:01.000Z'), remaining: ['a'], attempts: 0 },
      { notification: note('ok2', '2025-01-01T00:00:02.000Z'), remaining: ['a'], attempts: 0 },
      { notification: note('ok3', '2025-01-01T00:00:03.000Z'), remaining: ['a'], attempts: 0 },
    ];
    const out = boundPending(pending, T0 + 10_000, limits({ maxAttempts: 3, maxPending: 2 }));
    expect(out.pending.map((p) => p.notification.id)).toEqual(['ok2', 'ok3']);
    expect(out.dropped.map((d) => `${d.notification.id} ${d.reason}`)).toEqual([
      'tried attempts',
      'old age',
      'ok1 size',
    ]);
  });
});

describe('delivery lanes', () => {
  it('sends claimed entries to the notifiers still owed; a failure stays pending for that notifier only', async () => {
    const [a, b] = [notifier('a'), notifier('b', true)];
    const pending = [
      ...newPending([note('n1')], [a.name, b.name], 'me', 0),
      { notification: note('n2'), remaining: ['a'], claimedBy: 'other', claimedAt: 0, attempts: 0 },
    ];
    const { records, errors } = await deliver([pending], [a, b]);
    expect(a.got).toEqual(['n1']);
    expect(errors).toEqual(['b: b down']);
    expect(records[0].stored().pending).toEqual([
      { notification: note('n1'), remaining: ['b'], attempts: 1 },
      pending[1],
    ]);
  });

  it('a batching notifier gets every record added together in one sendBatch; results per notification', async () => {
    const calls: string[][] = [];
    const batcher: Notifier = {
      name: 'batch',
      send: () => Promise.reject(new Error('send is not used when sendBatch exists')),
      sendBatch: (list) => {
        calls.push(list.map((x) => x.id));
        return Promise.resolve(
          list.map((x) =>
            x.id === 'n2' ? new NotifyError('entry rejected', { notifier: 'batch' }) : undefined,
          ),
        );
      },
    };
    const single = notifier('single');
    const { records, errors } = await deliver(
      [
        newPending([note('n1'), note('n2')], [batcher.name, single.name], 'me', 0),
        newPending([note('n3')], [batcher.name, single.name], 'me', 0),
      ],
      [batcher, single],
    );
    expect(calls).toEqual([['n1', 'n2', 'n3']]);
    expect(single.got.sort()).toEqual(['n1', 'n2', 'n3']);
    expect(errors).toEqual(['batch: batch: entry rejected']);
    expect(records[0].stored().pending).toEqual([
      { notification: note('n2'), remaining: ['batch'], attempts: 1 },
    ]);
    expect(records[1].stored().pending).toEqual([]);
  });

  it('a sendBatch that throws or answers for the wrong number of notifications delivers none', async () => {
    for (const sendBatch of [
      () => Promise.reject(new Error('boom')),
      () => Promise.resolve([undefined]),
    ]) {
      const batcher: Notifier = { name: 'b', send: () => Promise.resolve(), sendBatch };
      const { records, errors } = await deliver(
        [newPending([note('n1'), note('n2')], [batcher.name], 'me', 0)],
        [batcher],
      );
      expect(errors).toHaveLength(2);
      expect(records[0].stored().pending.map((p) => p.remaining)).toEqual([['b'], ['b']]);
    }
  });

  it('a one-by-one notifier gets each record’s notifications in order', async () => {
    const order: string[] = [];
    const slow: Notifier = {
      name: 'slow',
      send: async (n) => {
        await new Promise((r) => setTimeout(r, n.id === 'a1' ? 5 : 0));
        order.push(n.id);
      },
    };
    await deliver(
      [
        newPending([note('a1'), note('a2')], [slow.name], 'me', 0),
        newPending([note('b1')], [slow.name], 'me', 0),
      ],
      [slow],
    );
    expect(order.filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(order).toHaveLength(3);
  });

  it('a hanging notifier times out; the working one is recorded before it, and it is skipped for the rest of the run', async () => {
    const sns = notifier('sns');
    let hangingCalls = 0;
    const hanging: Notifier = {
      name: 'slack',
      // Ignores its abort signal, like a receiver that never answers.
      send: () => ((hangingCalls += 1), new Promise<void>(() => undefined)),
    };
    const started = Date.now();
    const { records, errors } = await deliver(
      [newPending([note('n1'), note('n2')], [sns.name, hanging.name], 'me', 0)],
      [sns, hanging],
      { notifierTimeoutMs: 50 },
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(hangingCalls).toBe(1);
    expect(errors.filter((e) => e.startsWith('slack:'))).toHaveLength(2);
    // The first write recorded SNS's success while Slack still hung (a kill then loses nothing).
    expect(records[0].writes[0].pending.map((p) => [p.remaining, p.claimedBy])).toEqual([
      [['slack'], 'me'],
      [['slack'], 'me'],
    ]);
    expect(records[0].stored().pending.map((p) => [p.remaining, p.attempts])).toEqual([
      [['slack'], 1],
      [['slack'], 1],
    ]);
  });

  it('gives up an entry after its attempts (a logged drop), so pending never grows forever', async () => {
    const down = notifier('a', true);
    const pending = newPending([note('n1')], [down.name], 'me', 0).map((p) => ({
      ...p,
      attempts: 2,
    }));
    const { records, dropped } = await deliver([pending], [down], { maxAttempts: 3 });
    expect(dropped).toEqual(['n1 attempts']);
    expect(records[0].stored().pending).toEqual([]);
  });
});
