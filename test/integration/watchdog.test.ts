/**
 * The watchdog against the sandbox over HTTP: scripted timelines with the sandbox clock (no
 * sleeps), concurrent runs over DynamoDB (dynalite), a failing service, a failing notifier,
 * auto-restart, and a real webhook receiver.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ManagementClient } from '../../lib/api';
import { loadService } from '../../lib/pipes/records';
import { runWatchdog, type WatchdogDeps } from '../../lib/pipes/watchdog';
import { parseWatchdogConfig, type WatchdogConfigInput } from '../../lib/pipes/watchdog-config';
import type { Notifier } from '../../lib/watch/notifiers/types';
import { createWebhookNotifier } from '../../lib/watch/notifiers/webhook';
import { verifyAsDocumented } from '../support/webhook-signature';
import { LocalWatchStore } from '../../lib/watch/local-store';
import type { WatchStore } from '../../lib/watch/store';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import { startSandbox, type Sandbox } from '../../sandbox/index';
import { startReceiver } from '../support/receiver';
import {
  brief,
  clientFor,
  pipeOf,
  recordingNotifier,
  startWatchdogSandbox,
} from './watchdog-helpers';
import { renderAny } from '../support/notices';

const MIN = 60_000;
let sb: Sandbox;
let client: ManagementClient;
let dynamo: LocalDynamo;
let kafka: string; // service 1, Running, kafka source
let storage: string; // service 1, Failed, object storage
let postgres: string; // service 1, Provisioning, postgres

beforeAll(async () => {
  sb = await startWatchdogSandbox();
  client = clientFor(sb);
  dynamo = await startLocalDynamo();
  [kafka, storage, , postgres] = sb.info.pipeIds as [string, string, string, string];
});
afterAll(async () => {
  client.close();
  await dynamo.close();
  await sb.close();
});

let reset: { id: string; state: string }[] = [];
beforeEach(() => {
  reset = sb.store.state.pipes.map((p) => ({ id: p.id, state: p.state }));
  sb.faults.clear();
});
afterEach(() => {
  // Put deleted pipes back and states as they were: tests share one sandbox.
  for (const { id, state } of reset)
    if (sb.store.state.pipes.some((p) => p.id === id)) sb.setPipeState(id, state);
});

function watchdog(overrides: Partial<WatchdogConfigInput> = {}, deps: Partial<WatchdogDeps> = {}) {
  const notifier = recordingNotifier();
  const store: WatchStore = deps.store ?? new LocalWatchStore();
  const config = parseWatchdogConfig({
    organizationId: sb.info.organizationId,
    serviceIds: [sb.info.serviceId],
    ...overrides,
  });
  const run = () =>
    runWatchdog(config, {
      api: client,
      store,
      notifiers: [notifier],
      now: () => sb.clock.now(),
      ...deps,
    });
  return { notifier, store, run };
}

/** Apply a state (or 'gone') at a minute of the script, run once, return the run's result. */
async function timeline(
  pipeId: string,
  steps: [number, string][],
  overrides: Partial<WatchdogConfigInput> = {},
) {
  const w = watchdog({ includePipes: [pipeId], ...overrides });
  let minute = 0;
  const results = [];
  for (const [at, state] of steps) {
    sb.clock.advance((at - minute) * MIN);
    minute = at;
    if (state === 'gone')
      sb.store.state.pipes = sb.store.state.pipes.filter((p) => p.id !== pipeId);
    else sb.setPipeState(pipeId, state);
    results.push(await w.run());
  }
  return { ...w, results };
}

describe('scripted timelines (sandbox over HTTP, injected clock)', () => {
  it('Running -> Failed -> Failed -> Running: a silent baseline, one critical transition, one recovery', async () => {
    const { notifier, results } = await timeline(kafka, [
      [0, 'Running'],
      [5, 'Failed'],
      [10, 'Failed'],
      [15, 'Running'],
    ]);
    expect(notifier.sent.map(brief)).toEqual([
      'transition:critical:Running->Failed',
      'recovery:info:Failed->Running',
    ]);
    expect(notifier.sent[0]).toMatchObject({
      pipeId: kafka,
      serviceId: sb.info.serviceId,
      organizationId: sb.info.organizationId,
      pipeName: 'orders-kafka',
    });
    expect(results.map((r) => r.notifications.length)).toEqual([0, 1, 0, 1]);
    expect(results.every((r) => r.errors.length === 0 && r.checked === 1)).toBe(true);
  });

  it('Provisioning stuck for 40 min: one stuck warning', async () => {
    const { notifier } = await timeline(postgres, [
      [0, 'Provisioning'],
      [10, 'Provisioning'],
      [20, 'Provisioning'],
      [31, 'Provisioning'],
      [40, 'Provisioning'],
    ]);
    expect(notifier.sent.map(brief)).toEqual(['stuck:warning:Provisioning->Provisioning']);
    expect(notifier.sent[0].message).toMatch(/Provisioning for 31 min/);
  });

  it('Running <-> Stopped 6 times in 10 min: damped to one flapping notice, recovery once stable', async () => {
    const steps: [number, string][] = [[0, 'Running']];
    for (let i = 1; i <= 6; i++) steps.push([i * 1.5, i % 2 ? 'Stopped' : 'Running']);
    steps.push([15, 'Running'], [25, 'Running']);
    const { notifier } = await timeline(kafka, steps);
    expect(notifier.sent.map(brief)).toEqual([
      'transition:warning:Running->Stopped',
      'recovery:info:Stopped->Running',
      'transition:warning:Running->Stopped',
      'flapping:warning:Stopped->Running',
      'recovery:info:Running->Running',
    ]);
  });

  it('an unknown state value is reported once, naming it', async () => {
    const { notifier } = await timeline(kafka, [
      [0, 'Running'],
      [5, 'Hibernating'],
      [10, 'Hibernating'],
      [300, 'Hibernating'],
    ]);
    expect(notifier.sent.map(brief)).toEqual(['unknown:warning:Running->Hibernating']);
    expect(notifier.sent[0].message).toContain('"Hibernating"');
  });

  it('a deleted pipe is reported once', async () => {
    const saved = sb.store.state.pipes.find((p) => p.id === kafka)!;
    try {
      const { notifier, results } = await timeline(kafka, [
        [0, 'Running'],
        [5, 'gone'],
        [10, 'gone'],
        [15, 'gone'],
      ]);
      expect(notifier.sent.map(brief)).toEqual(['gone:warning:Running->']);
      // Told at the second listing in a row without it.
      expect(results.map((r) => r.notifications.length)).toEqual([0, 0, 1, 0]);
    } finally {
      sb.store.state.pipes.push(saved);
    }
  });

  it('a pipe missing from one listing and back the next is no notice (a blip), at one request per run', async () => {
    const saved = sb.store.state.pipes.find((p) => p.id === kafka)!;
    const w = watchdog({ includePipes: [kafka] });
    sb.requestLog.clear();
    await w.run();
    sb.clock.advance(5 * MIN);
    sb.store.state.pipes = sb.store.state.pipes.filter((p) => p.id !== kafka);
    try {
      await w.run();
    } finally {
      sb.store.state.pipes.push(saved);
    }
    sb.clock.advance(5 * MIN);
    await w.run();
    expect(w.notifier.sent.map(brief)).toEqual([]);
    const requests = sb.requestLog.entries().filter((e) => e.surface === 'management');
    expect(requests).toHaveLength(3);
  });

  it('makes one request per service per run: its metrics', async () => {
    const w = watchdog({ serviceIds: sb.info.serviceIds });
    for (let run = 0; run < 2; run++) {
      sb.requestLog.clear();
      sb.clock.advance(5 * MIN);
      const result = await w.run();
      const requests = sb.requestLog.entries().filter((e) => e.surface === 'management');
      expect(requests.map((e) => `${e.method} ${e.path.split('/').at(-1)}`)).toEqual(
        sb.info.serviceIds.map(() => 'GET prometheus'),
      );
      // Every pipe of the running services is checked; the idle one is reported idle.
      const running = sb.store.state.services.filter((s) => s.state !== 'idle').map((s) => s.id);
      expect(result.checked).toBe(
        sb.store.state.pipes.filter((p) => running.includes(p.serviceId!)).length,
      );
      expect(result.idle).toEqual(sb.info.serviceIds.filter((id) => !running.includes(id)));
    }
  });
});

describe('two overlapping runs (DynamoDB via dynalite)', () => {
  /** The real DynamoDB store, held until both runs have read: they decide on the same record. */
  function barrierStores(count: number): WatchStore[] {
    let waiting = 0;
    let release!: () => void;
    const allRead = new Promise<void>((resolve) => (release = resolve));
    return Array.from({ length: count }, () => {
      const real = dynamo.store();
      return Object.assign(Object.create(real) as WatchStore, {
        async list(scope: string) {
          const state = await real.list(scope);
          if (++waiting === count) release();
          await allRead;
          return state;
        },
      });
    });
  }

  it('send each notification once', async () => {
    const config = parseWatchdogConfig({
      organizationId: sb.info.organizationId,
      serviceIds: [sb.info.serviceId],
      includePipes: [kafka],
    });
    const run = (store: WatchStore, notifier: Notifier, runId: string) =>
      runWatchdog(config, {
        api: client,
        store,
        notifiers: [notifier],
        now: () => sb.clock.now(),
        runId,
      });
    const [a, b] = [recordingNotifier('shared'), recordingNotifier('shared')];
    sb.setPipeState(kafka, 'Running');
    const [s1, s2] = barrierStores(2) as [WatchStore, WatchStore];
    const first = await Promise.all([run(s1, a, 'run-1'), run(s2, b, 'run-2')]);
    expect([...a.sent, ...b.sent].map(brief)).toEqual([]); // the baseline
    expect(first.flatMap((r) => r.errors)).toEqual([]);

    sb.setPipeState(kafka, 'Failed');
    sb.clock.advance(MIN);
    const [s3, s4] = barrierStores(2) as [WatchStore, WatchStore];
    const second = await Promise.all([run(s3, a, 'run-3'), run(s4, b, 'run-4')]);
    expect([...a.sent, ...b.sent].map(brief)).toEqual(['transition:critical:Running->Failed']);
    expect(second.flatMap((r) => r.notifications)).toHaveLength(1);
    expect(second.flatMap((r) => r.errors)).toEqual([]);
  });
});

describe('self-watch', () => {
  it('one service answering 500 does not stop the other; reported after M failed runs, recovery after', async () => {
    const [svc1, svc2] = sb.info.serviceIds as [string, string];
    const w = watchdog({ serviceIds: [svc1, svc2], selfWatchAfterFailures: 3 });
    await w.run(); // baseline: every pipe announced as new
    const baseline = w.notifier.sent.length;
    const route = `GET /v1/organizations/${sb.info.organizationId}/services/${svc2}/prometheus`;
    const kinds: string[][] = [];
    for (let i = 0; i < 4; i++) {
      sb.faults.queue({ route, kind: '500', count: 1 });
      sb.clock.advance(5 * MIN);
      if (i === 1) sb.setPipeState(kafka, 'Failed');
      const r = await w.run();
      expect(r.errors).toEqual([expect.objectContaining({ stage: 'list', serviceId: svc2 })]);
      expect(r.checked).toBe(4); // service 1 fully checked
      expect(r.metrics.apiErrors).toBe(1);
      kinds.push(r.notifications.map((n) => `${n.kind}:${n.serviceId === svc1 ? 1 : 2}`));
    }
    expect(kinds).toEqual([[], ['transition:1'], ['watchdog:2'], []]);
    const alarm = w.notifier.sent[baseline + 1];
    expect(alarm).toMatchObject({ kind: 'watchdog', severity: 'critical', serviceId: svc2 });
    expect(alarm.message).toMatch(/3 consecutive runs.*500/);
    sb.clock.advance(5 * MIN);
    const healed = await w.run();
    expect(healed.notifications.map((n) => `${n.kind}:${n.serviceId === svc1 ? 1 : 2}`)).toEqual([
      'recovery:2',
    ]);
  });
});

describe('delivery safety', () => {
  it('a failing notifier is reported and the next run sends the notification; others are not repeated', async () => {
    const store = new LocalWatchStore();
    const down = recordingNotifier('down');
    const up = recordingNotifier('up');
    const config = parseWatchdogConfig({
      organizationId: sb.info.organizationId,
      serviceIds: [sb.info.serviceId],
      includePipes: [kafka],
    });
    const run = () =>
      runWatchdog(config, { api: client, store, notifiers: [down, up], now: () => sb.clock.now() });
    sb.setPipeState(kafka, 'Running');
    await run();
    sb.setPipeState(kafka, 'Failed');
    sb.clock.advance(MIN);
    down.failNext(1);
    const first = await run();
    expect(first.errors).toEqual([
      expect.objectContaining({ stage: 'notify', notifier: 'down', pipeId: kafka }),
    ]);
    expect(up.sent.map((n) => n.kind)).toEqual(['transition']);
    expect(down.sent.map((n) => n.kind)).toEqual([]);
    sb.clock.advance(MIN);
    const second = await run();
    expect(second.errors).toEqual([]);
    expect(down.sent.map((n) => n.kind)).toEqual(['transition']);
    expect(up.sent.map((n) => n.kind)).toEqual(['transition']); // not sent twice
    expect(second.notifications.map((n) => n.id)).toEqual([first.notifications[0].id]);
    sb.clock.advance(MIN);
    expect((await run()).notifications).toEqual([]);
  });
});

describe('auto-restart', () => {
  it('restarts a failed streaming pipe at most K times per window, each attempt notified; never postgres', async () => {
    const w = watchdog({
      includePipes: [storage, postgres],
      autoRestart: { enabled: true, maxAttempts: 2, windowMs: 60 * MIN },
    });
    sb.setPipeState(postgres, 'Failed');
    const attempts: number[] = [];
    for (let i = 0; i < 4; i++) {
      sb.setPipeState(storage, 'Failed');
      sb.requestLog.clear();
      const r = await w.run();
      attempts.push(sb.requestLog.entries().filter((e) => e.method === 'PATCH').length);
      expect(r.errors).toEqual([]);
      sb.clock.advance(5 * MIN);
    }
    expect(attempts).toEqual([1, 1, 0, 0]);
    const restarts = w.notifier.sent.filter((n) => n.kind === 'restart');
    expect(restarts.map(pipeOf)).toEqual([storage, storage]);
    expect(restarts[1].message).toMatch(/attempt 2 of 2/);
    expect(sb.store.state.pipes.find((p) => p.id === postgres)!.state).toBe('Failed');
  });
});

describe('metrics and a real webhook', () => {
  it('emits one EMF line and delivers a signed webhook to a local receiver', async () => {
    const receiver = await startReceiver();
    const lines: string[] = [];
    try {
      const secret = 'watchdog-webhook-signing-secret';
      const webhook = createWebhookNotifier({
        render: renderAny,
        url: receiver.url,
        signingSecret: secret,
      });
      const config = parseWatchdogConfig({
        organizationId: sb.info.organizationId,
        serviceIds: [sb.info.serviceId],
        includePipes: [kafka],
      });
      sb.setPipeState(kafka, 'Failed'); // a problem is told even by a first (baseline) run
      const r = await runWatchdog(config, {
        api: client,
        store: new LocalWatchStore(),
        notifiers: [webhook],
        now: () => sb.clock.now(),
        metricsSink: (l) => lines.push(l),
      });
      expect(r.notifications).toHaveLength(1);
      expect(receiver.received).toHaveLength(1);
      const { body, headers } = receiver.received[0];
      expect(verifyAsDocumented(String(headers['x-cloudops-signature']), body, secret)).toBe(true);
      expect(JSON.parse(body)).toMatchObject({ notification: { kind: 'new', pipeId: kafka } });
    } finally {
      await receiver.close();
    }
    expect(lines).toHaveLength(1);
    const emf = JSON.parse(lines[0]) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] };
    };
    expect(emf._aws.CloudWatchMetrics[0].Metrics.map((m) => m.Name)).toEqual([
      'PipesChecked',
      'Transitions',
      'Notifications',
      'ApiErrors',
      'NotifyErrors',
      'Duration',
      'ServicesIdle',
      'DeliveriesDropped',
    ]);
    expect(emf).toMatchObject({ PipesChecked: 1, Notifications: 1, ApiErrors: 0 });
  });
});

describe('first run and idle services', () => {
  it('a first run records a silent baseline (problems still told); a pipe appearing later is announced at info', async () => {
    const w = watchdog();
    const first = await w.run();
    const mine = sb.store.state.pipes.filter((p) => p.serviceId === sb.info.serviceId);
    expect(first.checked).toBe(mine.length);
    expect(first.notifications.length).toBeGreaterThan(0);
    expect(first.notifications.every((n) => n.kind === 'new' && n.severity !== 'info')).toBe(true);
    expect(first.notifications.length).toBeLessThan(mine.length);

    const late = { ...structuredClone(mine[0]), id: randomUUID(), name: 'late-arrival' };
    sb.store.state.pipes.push({ ...late, state: 'Running' });
    try {
      sb.clock.advance(MIN);
      const second = await w.run();
      expect(second.notifications.map(brief)).toEqual(['new:info:->Running']);
      expect(second.notifications[0]).toMatchObject({ pipeName: 'late-arrival' });
    } finally {
      sb.store.state.pipes = sb.store.state.pipes.filter((p) => p.id !== late.id);
    }
  });
});

describe.each(['current', 'spec'] as const)('idle services (%s profile)', (profile) => {
  let own: Sandbox;
  let api: ManagementClient;
  beforeAll(async () => {
    own = await startSandbox({
      port: 0,
      profile,
      rateLimits: { management: { limit: 100_000, windowMs: 1_000 } },
    });
    api = clientFor(own);
  });
  afterAll(async () => {
    api.close();
    await own.close();
  });

  it('an idle service (424) is told once at info, its pipes untouched and nothing woken; again when active', async () => {
    const [svc1, svc2] = own.info.serviceIds as [string, string];
    const notifier = recordingNotifier();
    const store = new LocalWatchStore();
    const config = parseWatchdogConfig({
      organizationId: own.info.organizationId,
      serviceIds: [svc1, svc2],
    });
    const run = () =>
      runWatchdog(config, { api, store, notifiers: [notifier], now: () => own.clock.now() });
    await run(); // baseline
    own.setServiceState(svc2, 'idle');
    const said: string[][] = [];
    for (let i = 0; i < 3; i++) {
      own.clock.advance(5 * MIN);
      own.requestLog.clear();
      const r = await run();
      expect(r.errors).toEqual([]);
      expect(r.idle).toEqual([svc2]);
      expect(r.metrics.servicesIdle).toBe(1);
      // Nothing but the two listings: no start, no retry that could wake it.
      expect(own.requestLog.entries().filter((e) => e.surface === 'management')).toHaveLength(2);
      said.push(
        r.notifications.map((n) => `${n.kind}:${n.severity}:${n.serviceId === svc2 ? 2 : 1}`),
      );
    }
    expect(said).toEqual([['idle:info:2'], [], []]);
    // Its pipes were not declared gone while it slept.
    const stored = await loadService(store, own.info.organizationId, svc2);
    expect(stored.pipes.length).toBeGreaterThan(0);
    expect(stored.pipes.every((p) => !p.gone)).toBe(true);
    own.setServiceState(svc2, 'running');
    own.clock.advance(5 * MIN);
    const awake = await run();
    expect(awake.notifications.map((n) => `${n.kind}:${n.severity}`)).toEqual(['active:info']);
  });

  it.runIf(profile === 'current')(
    'the seeded idle service is reported idle, not as a failure',
    async () => {
      const idle = own.info.idleServiceId!;
      expect(idle).toBeDefined();
      const notifier = recordingNotifier();
      const r = await runWatchdog(
        parseWatchdogConfig({
          organizationId: own.info.organizationId,
          serviceIds: own.info.serviceIds,
        }),
        { api, store: new LocalWatchStore(), notifiers: [notifier], now: () => own.clock.now() },
      );
      expect(r.errors).toEqual([]);
      expect(r.idle).toEqual([idle]);
      expect(notifier.sent.filter((n) => n.serviceId === idle).map(brief)).toEqual([
        'idle:info:->idle',
      ]);
    },
  );
});
