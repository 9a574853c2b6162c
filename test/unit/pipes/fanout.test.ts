import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../lib/log';
import {
  enqueueServices,
  planBatches,
  type WatchdogBatchMessage,
} from '../../../lib/pipes/enqueue';
import { consumeBatch, parseBatchMessage } from '../../../lib/pipes/fanout';
import type { PipeApi, WatchdogNotice } from '../../../lib/pipes/watchdog';
import { parseWatchdogConfig } from '../../../lib/pipes/watchdog-config';
import { LocalWatchStore } from '../../../lib/watch/local-store';

const config = parseWatchdogConfig({ organizationId: 'org', serviceIds: ['a', 'b', 'c'] });
const queue = () => {
  const sent: string[] = [];
  return { sent, send: (bodies: readonly string[]) => (sent.push(...bodies), Promise.resolve()) };
};
/** Reads one Failed pipe per service (in its metrics); services in `hang` wait until aborted. */
function api(hang: string[] = []) {
  const listed: string[] = [];
  const answer = <T>(serviceId: string, signal: AbortSignal | undefined, value: T) => {
    if (hang.includes(serviceId))
      return new Promise<T>((_, reject) =>
        signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    listed.push(serviceId);
    return Promise.resolve(value);
  };
  const pipeApi: PipeApi = {
    getServiceMetrics: (serviceId, opts) =>
      answer(serviceId, opts?.signal, {
        serviceId,
        observed: true,
        pipes: [{ pipeId: `p-${serviceId}`, name: `pipe ${serviceId}`, state: 'Failed' }],
        cdc: {},
      }),
    listPipes: (serviceId, opts) =>
      answer(serviceId, opts?.signal, [
        { id: `p-${serviceId}`, name: `pipe ${serviceId}`, state: 'Failed' },
      ]),
    pipeStateCommand: () => Promise.resolve(undefined),
  };
  return { listed, pipeApi };
}

describe('fan-out', () => {
  it('plans batches of the rate-limit size', () => {
    expect(planBatches(['1', '2', '3', '4', '5'], 2)).toEqual([['1', '2'], ['3', '4'], ['5']]);
    expect(() => planBatches(['1'], 0)).toThrow(/positive integer/);
  });

  it('the scheduled half enqueues every service once, one run id', async () => {
    const q = queue();
    const r = await enqueueServices(config, { queue: q, servicesPerMessage: 2, now: () => 5 });
    const messages = q.sent.map((b, i) => parseBatchMessage(b, `m${i}`));
    expect(messages.map((m) => m.serviceIds)).toEqual([['a', 'b'], ['c']]);
    expect(new Set(messages.map((m) => m.runId))).toEqual(new Set([r.runId]));
  });

  it('a bad message names itself and the field', () => {
    expect(() => parseBatchMessage('{"runId":"r"}', 'msg-1')).toThrow(/msg-1.*organizationId/);
    expect(() => parseBatchMessage('nope', 'msg-2')).toThrow(/msg-2: body is not JSON/);
  });

  it('stops at the deadline, sends the rest back, and a redelivery skips what was finished', async () => {
    const store = new LocalWatchStore();
    const message: WatchdogBatchMessage = {
      runId: 'run-1',
      organizationId: 'org',
      serviceIds: ['a', 'b', 'c'],
      scheduledAt: 0,
    };
    const stop = new AbortController();
    const first = api(['c']);
    const q = queue();
    const sent: string[] = [];
    const notifier = {
      name: 'n',
      send: (n: WatchdogNotice) => (
        sent.push(n.subject === 'pipe' ? n.pipeId : ''),
        Promise.resolve()
      ),
    };
    const pending = consumeBatch(config, message, {
      api: first.pipeApi,
      store,
      notifiers: [notifier],
      now: () => 1_000,
      logger: silentLogger,
      queue: q,
      stopSignal: stop.signal,
    });
    await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const r = await pending;
    expect(r.requeued).toEqual(['c']);
    expect(parseBatchMessage(q.sent[0], 'x')).toMatchObject({ runId: 'run-1', serviceIds: ['c'] });
    expect(sent.sort()).toEqual(['p-a', 'p-b']);

    // The whole message again (SQS redelivery): a and b are skipped, c is checked.
    const again = api();
    const r2 = await consumeBatch(config, message, {
      api: again.pipeApi,
      store,
      notifiers: [notifier],
      now: () => 2_000,
      logger: silentLogger,
      queue: queue(),
    });
    expect(again.listed).toEqual(['c']);
    expect(r2.skipped.sort()).toEqual(['a', 'b']);
    expect(sent.sort()).toEqual(['p-a', 'p-b', 'p-c']);
  });
});
