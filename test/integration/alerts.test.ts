/**
 * Alert provisioning from events against the sandbox over HTTP (managed mode: create through
 * the management API, update through /api/v2). Ground truth is read from the sandbox store.
 */
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObservabilityBackend } from '../../lib/api';
import {
  AlertProvisionError,
  createAlertProvisioner,
  KeyedMutex,
  MemoryVersionStore,
  parseMarker,
} from '../../lib/alerts';
import { createLogger } from '../../lib/log';
import type { Dashboard } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import { createHandler } from '../../functions/provision-alerts/handler';
import { declared, iso, requestEvent, syncedEvent, tileAlert } from './alert-events';
import { alertWrites, backendFor, makeDashboard, sandbox, storedAlerts } from './alerts-helpers';

let sb: Sandbox;
let backend: ObservabilityBackend;
let webhookId: string;

beforeAll(async () => {
  sb = await sandbox();
  backend = backendFor(sb);
  webhookId = sb.info.webhookId;
});
afterAll(async () => {
  await sb.close();
});

const alertsOn = (dash: Dashboard) => storedAlerts(sb).filter((a) => a.dashboard === dash.id);

describe('exactly one alert per declaration', () => {
  it('the same Dashboard Synced event delivered 3 times makes one alert', async () => {
    const dash = await makeDashboard(backend, 'thrice');
    const event = syncedEvent(dash, [declared(webhookId, 'Errors', 'Error rate')], iso(1000));
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    const actions = [];
    for (let i = 0; i < 3; i += 1) {
      const r = await provisioner.provision(event);
      actions.push(r.outcomes.map((o) => o.action).join(','));
    }
    expect(actions).toEqual(['created', 'unchanged', 'unchanged']);
    const alerts = alertsOn(dash);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].message).toBe(
      `Error rate fired\n[cloudops:d/dashboards%2Fthrice.yaml/Errors/Error%20rate@${iso(1000)}]`,
    );
  });

  it('3 copies processed concurrently in one process make one alert', async () => {
    const dash = await makeDashboard(backend, 'concurrent-one');
    const event = syncedEvent(dash, [declared(webhookId, 'Latency', 'Slow')], iso(1000));
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    await Promise.all([1, 2, 3].map(() => provisioner.provision(event)));
    expect(alertsOn(dash)).toHaveLength(1);
  });

  it('3 copies on 3 instances (no shared lock) that all list before anyone creates converge on one alert', async () => {
    const dash = await makeDashboard(backend, 'concurrent-three');
    const req = requestEvent(
      'payments/slow-checkout',
      tileAlert(dash, 'Latency', webhookId, 'Checkout slow', 800),
      iso(5000),
    );
    // A gate on the real backend: each instance's first list waits until all three have
    // listed, so all three see "no alert" and all three create -- the worst interleaving.
    let listed = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated = (): ObservabilityBackend => {
      let first = true;
      return {
        ...backend,
        mode: backend.mode,
        listAlerts: async (o) => {
          const alerts = await backend.listAlerts(o);
          if (first) {
            first = false;
            if (++listed === 3) open();
            await gate;
          }
          return alerts;
        },
      };
    };
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        createAlertProvisioner({
          backend: gated(),
          mutex: new KeyedMutex(),
          versions: new MemoryVersionStore(),
        }).provision(req),
      ),
    );
    const actions = results.flatMap((r) => r.outcomes.map((o) => o.action));
    expect(actions.filter((a) => a === 'created')).toHaveLength(3);
    expect(actions.filter((a) => a === 'duplicate-removed').length).toBeGreaterThanOrEqual(2);
    const alerts = storedAlerts(sb).filter((a) => parseMarker(a.message)?.owner.kind === 'request');
    expect(alerts.filter((a) => a.name === 'Checkout slow')).toHaveLength(1);
  });

  it('a duplicate that already exists is reported and the younger copy removed', async () => {
    const dash = await makeDashboard(backend, 'pre-dup');
    const event = syncedEvent(dash, [declared(webhookId, 'Errors', 'Dup')], iso(1000));
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    const first = await provisioner.provision(event);
    const keptId = first.outcomes[0].alertId!;
    // Someone (a crashed run, a restore) made a second copy with the same marker.
    const original = alertsOn(dash)[0];
    await new Promise((r) => setTimeout(r, 5)); // a later createdAt
    await backend.createAlert({
      ...tileAlert(dash, 'Errors', webhookId, 'Dup', 10),
      interval: '5m',
      message: original.message!,
    });
    expect(alertsOn(dash)).toHaveLength(2);
    // The last apply settled: a plain repeat of the event is skipped without a request...
    expect((await provisioner.provision(event)).outcomes.map((o) => o.detail)).toEqual([
      'as last applied',
    ]);
    // ...a redelivery (or any changed declaration) lists again and removes the copy.
    const again = await provisioner.provision(event, { redelivered: true });
    expect(again.outcomes.map((o) => o.action)).toEqual(['unchanged', 'duplicate-removed']);
    expect(alertsOn(dash).map((a) => a.id)).toEqual([keptId]);
  });
});

describe('out-of-order delivery', () => {
  it('a newer request then a delayed older one: the newer values stay', async () => {
    const dash = await makeDashboard(backend, 'ooo-request');
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    const newer = requestEvent(
      'ooo/1',
      tileAlert(dash, 'Errors', webhookId, 'Errors high', 50),
      iso(2000),
    );
    const older = requestEvent(
      'ooo/1',
      tileAlert(dash, 'Errors', webhookId, 'Errors high', 5),
      iso(1000),
    );
    await provisioner.provision(newer);
    const writes = alertWrites(sb);
    const r = await provisioner.provision(older);
    expect(r.outcomes.map((o) => o.action)).toEqual(['stale']);
    expect(alertWrites(sb)).toBe(writes);
    const alerts = alertsOn(dash);
    expect(alerts).toHaveLength(1);
    expect(alerts[0].threshold).toBe(50);
  });

  it('a newer dashboard sync then a delayed older one: the newer declarations stay', async () => {
    const dash = await makeDashboard(backend, 'ooo-dash');
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    const v1 = [declared(webhookId, 'Errors', 'A', 1), declared(webhookId, 'Latency', 'B', 2)];
    const v2 = [declared(webhookId, 'Errors', 'A', 100)]; // B removed, A changed
    await provisioner.provision(syncedEvent(dash, v2, iso(2000)));
    const r = await provisioner.provision(syncedEvent(dash, v1, iso(1000)));
    expect(r.outcomes.every((o) => o.action === 'stale')).toBe(true);
    const alerts = alertsOn(dash);
    expect(alerts.map((a) => [a.name, a.threshold])).toEqual([['A', 100]]);
  });

  it('a newer declaration updates in place (same id, PUT only when different)', async () => {
    const dash = await makeDashboard(backend, 'update');
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    const first = await provisioner.provision(
      syncedEvent(dash, [declared(webhookId, 'Errors', 'A', 1)], iso(1000)),
    );
    const id = first.outcomes[0].alertId;
    const r = await provisioner.provision(
      syncedEvent(
        dash,
        [declared(webhookId, 'Errors', 'A', 2, { interval: '1h', message: 'new text' })],
        iso(2000),
      ),
    );
    expect(r.outcomes).toMatchObject([
      { action: 'updated', alertId: id, detail: 'message, threshold, interval' },
    ]);
    const [alert] = alertsOn(dash);
    expect(alert).toMatchObject({ id, threshold: 2, interval: '1h' });
    expect(parseMarker(alert.message)?.version).toBe(iso(2000));
    expect(alert.message!.startsWith('new text\n')).toBe(true);
  });
});

describe('declarations removed, hand-made alerts', () => {
  it('removing a declaration removes exactly that alert and nothing hand-made', async () => {
    const dash = await makeDashboard(backend, 'removal');
    const other = await makeDashboard(backend, 'removal-other');
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    // Hand-made alerts on the same tiles, one with a message that merely mentions cloudops.
    const hand1 = await backend.createAlert(tileAlert(dash, 'Errors', webhookId, 'A', 1));
    const hand2 = await backend.createAlert({
      ...tileAlert(dash, 'Latency', webhookId, 'mine', 3),
      message: 'set up by hand, see [cloudops: docs]',
    });
    const three = [
      declared(webhookId, 'Errors', 'A', 1),
      declared(webhookId, 'Latency', 'B', 2),
      declared(webhookId, 'Throughput', 'C', 3),
    ];
    await provisioner.provision(syncedEvent(dash, three, iso(1000)));
    await provisioner.provision(
      syncedEvent(other, [declared(webhookId, 'Errors', 'B', 2)], iso(1000)),
    );
    const before = storedAlerts(sb);
    const b = alertsOn(dash).find((a) => a.name === 'B' && parseMarker(a.message))!;

    const r = await provisioner.provision(syncedEvent(dash, [three[0], three[2]], iso(2000)));
    expect(r.outcomes.filter((o) => o.action === 'deleted')).toMatchObject([
      { alertId: b.id, name: 'B' },
    ]);
    const after = storedAlerts(sb);
    expect(after.map((a) => a.id).sort()).toEqual(
      before
        .map((a) => a.id)
        .filter((id) => id !== b.id)
        .sort(),
    );
    expect(after.some((a) => a.id === hand1.id)).toBe(true);
    expect(after.some((a) => a.id === hand2.id)).toBe(true);
    expect(after.filter((a) => a.dashboard === other.id)).toHaveLength(1);
  });
});

describe('10 cycles of dashboard update + provisioning', () => {
  it('keeps alert ids and writes nothing after the first cycle when nothing changed', async () => {
    const dash = await makeDashboard(backend, 'cycles');
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    const alerts = [declared(webhookId, 'Errors', 'E', 1), declared(webhookId, 'Latency', 'L', 2)];
    let ids: string[] | undefined;
    const writesPerCycle: number[] = [];
    for (let cycle = 0; cycle < 10; cycle += 1) {
      // The dashboard sync resends every tile with its current id (ids kept).
      const current = await backend.getDashboard(dash.id);
      const synced = await backend.updateDashboard(dash.id, {
        name: current.name,
        tiles: current.tiles,
      });
      const before = alertWrites(sb);
      const r = await provisioner.provision(syncedEvent(synced, alerts, iso(1000 * (cycle + 1))));
      writesPerCycle.push(alertWrites(sb) - before);
      expect(r.writes).toBe(writesPerCycle.at(-1));
      const now = alertsOn(dash)
        .map((a) => a.id)
        .sort();
      if (ids) expect(now).toEqual(ids);
      ids = now;
    }
    expect(ids).toHaveLength(2);
    expect(writesPerCycle).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('clear errors for bad references', () => {
  it('an unknown webhook or tile fails that declaration, naming it; the others are applied', async () => {
    const dash = await makeDashboard(backend, 'bad-refs');
    const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
    const event = syncedEvent(
      dash,
      [
        declared(webhookId, 'Errors', 'good'),
        declared('no-such-webhook', 'Latency', 'bad webhook'),
        declared(webhookId, 'Nope', 'bad tile'),
      ],
      iso(1000),
    );
    const error = await provisioner.provision(event, { ref: 'msg-1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlertProvisionError);
    const result = (error as AlertProvisionError).result;
    expect(result.errors).toHaveLength(2);
    expect(result.errors.join('\n')).toMatch(
      /tile "Nope".*does not have \(tiles: "Errors", "Latency", "Throughput"\)/,
    );
    expect(result.errors.join('\n')).toMatch(
      /alert "bad webhook" on tile "Latency".*webhook no-such-webhook not found/,
    );
    expect((error as Error).message).toMatch(/^Dashboard Synced event msg-1: /);
    expect(alertsOn(dash).map((a) => a.name)).toEqual(['good']);
  });
});

describe('provision-alerts handler (SQS partial batch)', () => {
  it('a batch of 10 with 2 bad records: 8 applied, 2 failures naming the event and the field', async () => {
    const dash = await makeDashboard(backend, 'batch', [
      'T0',
      'T1',
      'T2',
      'T3',
      'T4',
      'T5',
      'T6',
      'T7',
      'T8',
      'T9',
    ]);
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', sink: (l) => lines.push(l) });
    const handler = createHandler({
      // The requests' source (alert-events.ts) is one this deployment takes requests from.
      env: { CLOUDOPS_ALERT_REQUEST_SOURCES: 'team.payments' },
      backend,
      logger,
      versions: new MemoryVersionStore(),
    });
    const records = Array.from({ length: 10 }, (_, i) => {
      const event = requestEvent(
        `batch/${i}`,
        tileAlert(dash, `T${i}`, webhookId, `batch ${i}`, i),
        iso(1000),
      );
      let body: unknown = event;
      if (i === 3)
        body = {
          ...event,
          detail: { ...event.detail, alert: { ...event.detail.alert, interval: '2m' } },
        };
      if (i === 7) body = { ...event, detail: { alert: event.detail.alert } }; // no key
      return { messageId: `m-${i}`, body: JSON.stringify(body) };
    });
    const response = await handler({ Records: records }, {} as Context);
    expect(response.batchItemFailures).toEqual([
      { itemIdentifier: 'm-3' },
      { itemIdentifier: 'm-7' },
    ]);
    expect(
      alertsOn(dash)
        .map((a) => a.name)
        .sort(),
    ).toEqual([0, 1, 2, 4, 5, 6, 8, 9].map((i) => `batch ${i}`).sort());
    const reasons = lines
      .map((l) => JSON.parse(l) as { messageId?: string; reason?: string })
      .filter((l) => l.reason);
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).toMatchObject({ messageId: 'm-3' });
    expect(reasons[0].reason).toMatch(/^event m-3 is invalid: detail\.alert\.interval: /);
    expect(reasons[1].reason).toMatch(/^event m-7 is invalid: detail\.key: /);
  });

  it('a record that is not JSON or of an unknown kind fails alone', async () => {
    const handler = createHandler({
      env: {},
      backend,
      logger: createLogger({ level: 'silent' }),
      versions: new MemoryVersionStore(),
    });
    const response = await handler(
      {
        Records: [
          { messageId: 'x', body: '{not json' },
          {
            messageId: 'y',
            body: JSON.stringify({
              source: 's',
              'detail-type': 'Pipe State Changed',
              time: iso(0),
              detail: {},
            }),
          },
        ],
      },
      {} as Context,
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'x' }, { itemIdentifier: 'y' }]);
  });
});
