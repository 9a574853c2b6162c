/**
 * Progress from the metrics endpoint, against the sandbox over HTTP (its counters move with its
 * clock; flows and scrapes set through its admin routes): a stalled pipe, a quiet one, an
 * erroring one, a Degraded one, a partial scrape, an idle service, and the spec's snapshot
 * without the endpoint. One request per service per run throughout.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementClient } from '../../lib/api';
import { loadService } from '../../lib/pipes/records';
import { runWatchdog } from '../../lib/pipes/watchdog';
import { parseWatchdogConfig, type WatchdogConfigInput } from '../../lib/pipes/watchdog-config';
import { LocalWatchStore } from '../../lib/watch/local-store';
import type { Sandbox } from '../../sandbox/index';
import { admin } from '../support/sandbox-http';
import { brief, clientFor, recordingNotifier, startWatchdogSandbox } from './watchdog-helpers';

const MIN = 60_000;
let sb: Sandbox;
let client: ManagementClient;
let kafka: string; // service 1, Running, kafka: orders-kafka
let storage: string; // service 1, Failed, object storage

beforeAll(async () => {
  sb = await startWatchdogSandbox();
  client = clientFor(sb);
  [kafka, storage] = sb.info.pipeIds as [string, string];
});
afterAll(async () => {
  client.close();
  await sb.close();
});
afterEach(async () => {
  for (const id of sb.info.pipeIds) await admin(sb, 'DELETE', `/pipes/${id}/flow`);
  await admin(sb, 'PUT', `/services/${sb.info.serviceId}/scrape`, { scrape: 'full' });
  sb.setPipeState(kafka, 'Running');
});

function watchdog(overrides: Partial<WatchdogConfigInput> = {}) {
  const notifier = recordingNotifier();
  const store = new LocalWatchStore();
  const config = parseWatchdogConfig({
    organizationId: sb.info.organizationId,
    serviceIds: [sb.info.serviceId],
    includePipes: [kafka],
    ...overrides,
  });
  const run = () =>
    runWatchdog(config, { api: client, store, notifiers: [notifier], now: () => sb.clock.now() });
  /** One run now, then one every 5 sandbox-minutes until `minutes` have passed. */
  const every5 = async (minutes: number) => {
    const results = [await run()];
    for (let m = 5; m <= minutes; m += 5) {
      sb.clock.advance(5 * MIN);
      results.push(await run());
    }
    return results;
  };
  return { notifier, store, run, every5 };
}

const flow = (pipe: string, rates: Record<string, number>) =>
  admin(sb, 'PUT', `/pipes/${pipe}/flow`, rates);

describe('a stalled pipe', () => {
  it('fetching 100/min, sending nothing for 40 min: exactly one critical stall; restored, one recovery under the same key', async () => {
    const w = watchdog();
    expect((await flow(kafka, { fetchedPerMinute: 100, sentPerMinute: 0 })).status).toBe(200);
    sb.requestLog.clear();
    const results = await w.every5(40);
    expect(results.every((r) => r.errors.length === 0)).toBe(true);
    // One metrics read per run, nothing else.
    const requests = sb.requestLog.entries().filter((e) => e.surface === 'management');
    expect(requests).toHaveLength(results.length);
    expect(
      requests.every((e) => e.path.endsWith(`/services/${sb.info.serviceId}/prometheus`)),
    ).toBe(true);
    expect(w.notifier.sent.map(brief)).toEqual(['stalled:critical:moving->piling-up']);
    const [stall] = w.notifier.sent;
    expect(stall).toMatchObject({
      subject: 'pipe',
      pipeId: kafka,
      pipeName: 'orders-kafka',
      sourceKind: 'kafka',
      condition: 'progress',
      progress: { metric: 'ClickPipes_SentEvents_Total', ratePerMinute: 0 },
    });
    // The sandbox counts whole events; its clock runs on between two reads.
    expect(stall.subject === 'pipe' && stall.progress?.fetchedPerMinute).toBeCloseTo(100, 0);
    expect(stall.subject === 'pipe' && stall.progress?.readings).toHaveLength(2);
    // Told at the run 30 minutes after the data began to wait (the first run read it).
    expect(results.findIndex((r) => r.notifications.length > 0)).toBe(6);

    await admin(sb, 'DELETE', `/pipes/${kafka}/flow`);
    sb.clock.advance(5 * MIN);
    await w.run();
    expect(w.notifier.sent.map(brief)).toEqual([
      'stalled:critical:moving->piling-up',
      'recovery:info:piling-up->moving',
    ]);
    const recovery = w.notifier.sent[1];
    expect(recovery).toMatchObject({ dedupKey: stall.dedupKey, resolves: true });
  });

  it('the stored readings stay bounded and the record carries the progress between runs', async () => {
    const w = watchdog();
    await w.every5(60);
    const { pipes } = await loadService(w.store, sb.info.organizationId, sb.info.serviceId);
    const record = pipes.find((p) => p.pipeId === kafka)!;
    expect(record.progress?.readings).toHaveLength(6);
    expect(record.progress?.flow.state).toBe('moving');
  });
});

describe('a quiet pipe', () => {
  it('raises nothing unless it is expected to have traffic', async () => {
    await flow(kafka, { fetchedPerMinute: 0, sentPerMinute: 0 });
    const quiet = watchdog();
    await quiet.every5(60);
    expect(quiet.notifier.sent).toEqual([]);

    const expected = watchdog({ progress: { expectTraffic: ['orders-*'] } });
    await expected.every5(40);
    expect(expected.notifier.sent.map(brief)).toEqual(['quiet:warning:moving->quiet']);
  });
});

describe('an erroring pipe', () => {
  it('errors growing while Running: one erroring warning, and recovery once they stop', async () => {
    const w = watchdog();
    await flow(kafka, { errorsPerMinute: 5 });
    await w.every5(10);
    await admin(sb, 'DELETE', `/pipes/${kafka}/flow`);
    sb.clock.advance(5 * MIN);
    await w.every5(20);
    expect(w.notifier.sent.map(brief)).toEqual([
      'erroring:warning:ok->erroring',
      'recovery:info:erroring->ok',
    ]);
    expect(w.notifier.sent[0]).toMatchObject({
      condition: 'errors',
      progress: { metric: 'ClickPipes_Errors_Total', ratePerMinute: 5 },
    });
  });

  it('a higher limit per run keeps the same errors quiet', async () => {
    const w = watchdog({ progress: { errorsPerRun: 30 } });
    await flow(kafka, { errorsPerMinute: 5 });
    await w.every5(30);
    expect(w.notifier.sent).toEqual([]);
  });
});

describe('states and services the metrics report', () => {
  it('Degraded is its own warning, read from the metrics', async () => {
    const w = watchdog();
    await w.run();
    sb.setPipeState(kafka, 'Degraded');
    sb.clock.advance(5 * MIN);
    await w.run();
    expect(w.notifier.sent.map(brief)).toEqual(['transition:warning:Running->Degraded']);
  });

  it('a partial scrape is "not observed this run": no notice, no record touched, no stall counted', async () => {
    const w = watchdog({ includePipes: undefined });
    await w.run();
    const told = w.notifier.sent.length; // the first run: pipes already in trouble
    const before = await loadService(w.store, sb.info.organizationId, sb.info.serviceId);
    await admin(sb, 'PUT', `/services/${sb.info.serviceId}/scrape`, { scrape: 'partial' });
    for (let i = 0; i < 3; i++) {
      sb.clock.advance(5 * MIN);
      const r = await w.run();
      expect(r).toMatchObject({ checked: 0, errors: [], notObserved: [sb.info.serviceId] });
    }
    const after = await loadService(w.store, sb.info.organizationId, sb.info.serviceId);
    expect(after.pipes).toEqual(before.pipes);
    expect(w.notifier.sent).toHaveLength(told);
  });

  it('an idle service is told idle once from its metrics, and reading them does not wake it', async () => {
    const idle = sb.store.state.services.find((s) => s.state === 'idle')!.id;
    const w = watchdog({ serviceIds: [idle], includePipes: undefined });
    sb.requestLog.clear();
    await w.run();
    sb.clock.advance(5 * MIN);
    const second = await w.run();
    expect(second.idle).toEqual([idle]);
    expect(w.notifier.sent.map((n) => `${n.subject}:${n.kind}`)).toEqual(['service:idle']);
    expect(sb.store.service(idle)?.state).toBe('idle');
    const paths = sb.requestLog.entries().filter((e) => e.surface === 'management');
    expect(paths.map((e) => e.path.split('/').at(-1))).toEqual(['prometheus', 'prometheus']);
  });

  it('a pipe deleted from the service: missing from the metrics, confirmed by the next run listing', async () => {
    const w = watchdog({ includePipes: [storage] });
    await w.run();
    w.notifier.sent.length = 0; // the first run tells the Failed pipe it found
    const saved = sb.store.state.pipes.find((p) => p.id === storage)!;
    sb.store.state.pipes = sb.store.state.pipes.filter((p) => p.id !== storage);
    try {
      sb.requestLog.clear();
      sb.clock.advance(5 * MIN);
      await w.run();
      expect(w.notifier.sent).toEqual([]);
      sb.clock.advance(5 * MIN);
      await w.run();
      expect(w.notifier.sent.map(brief)).toEqual(['gone:warning:Failed->']);
      const paths = sb.requestLog.entries().filter((e) => e.surface === 'management');
      expect(paths.map((e) => e.path.split('/').at(-1))).toEqual(['prometheus', 'pipes']);
      sb.clock.advance(5 * MIN);
      sb.requestLog.clear();
      await w.run();
      expect(sb.requestLog.entries().map((e) => e.path.split('/').at(-1))).toEqual(['prometheus']);
    } finally {
      sb.store.state.pipes.push(saved);
    }
  });
});

describe('the spec snapshot, which has no metrics endpoint', () => {
  it('lists the pipes in the run that finds the endpoint missing, then only lists', async () => {
    const spec = await startWatchdogSandbox('spec');
    const api = clientFor(spec);
    try {
      const notifier = recordingNotifier();
      const config = parseWatchdogConfig({
        organizationId: spec.info.organizationId,
        serviceIds: spec.info.serviceIds,
      });
      const store = new LocalWatchStore();
      const run = () =>
        runWatchdog(config, { api, store, notifiers: [notifier], now: () => spec.clock.now() });
      const paths = () =>
        spec.requestLog
          .entries()
          .filter((e) => e.surface === 'management')
          .map((e) => `${e.status} ${e.path.split('/').at(-1)}`);
      const first = await run();
      expect(first.errors).toEqual([]);
      expect(paths().sort()).toEqual(
        spec.info.serviceIds.flatMap(() => ['200 pipes', '404 prometheus']).sort(),
      );
      expect(first.checked).toBeGreaterThan(0);
      spec.requestLog.clear();
      spec.clock.advance(5 * MIN);
      spec.setPipeState(spec.info.pipeIds[0], 'Failed');
      await run();
      expect(paths()).toEqual(spec.info.serviceIds.map(() => '200 pipes'));
      expect(notifier.sent.map(brief)).toContain('transition:critical:Running->Failed');
    } finally {
      api.close();
      await spec.close();
    }
  });
});
