/**
 * Out-of-order protection through the version store (DynamoDB on dynalite, the real SDK
 * client) against the sandbox over HTTP. Each provisioner stands for a separate Lambda instance:
 * its own mutex, the one table shared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObservabilityBackend } from '../../lib/api';
import {
  createAlertProvisioner,
  DynamoVersionStore,
  KeyedMutex,
  parseMarker,
  type AlertProvisioner,
} from '../../lib/alerts';
import type { AlertEvent } from '../../lib/events';
import type { LocalDynamo } from '../support/local-dynamo';
import type { Dashboard } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import { declared, iso, requestEvent, syncedEvent, tileAlert } from './alert-events';
import {
  alertWrites,
  backendFor,
  makeDashboard,
  sandboxWithVersions,
  storedAlerts,
  VERSION_TABLE,
} from './alerts-helpers';

let sb: Sandbox;
let dynamo: LocalDynamo;
let backend: ObservabilityBackend;
let wh: string;

beforeAll(async () => {
  ({ sb, dynamo } = await sandboxWithVersions());
  backend = backendFor(sb);
  wh = sb.info.webhookId;
});
afterAll(async () => {
  await Promise.all([sb.close(), dynamo.close()]);
});

/** A fresh "instance": own mutex, shared version table. */
function instance(b: ObservabilityBackend = backend): AlertProvisioner {
  return createAlertProvisioner({
    backend: b,
    mutex: new KeyedMutex(),
    versions: new DynamoVersionStore({ client: dynamo.client, tableName: VERSION_TABLE }),
    versionScope: `service/${sb.info.serviceId}`,
  });
}

const alertsOn = (dash: Dashboard) => storedAlerts(sb).filter((a) => a.dashboard === dash.id);
const shape = (dash: Dashboard) =>
  alertsOn(dash)
    .map((a) => `${a.name}=${a.threshold}`)
    .sort();
const actions = (r: { outcomes: { action: string }[] }) => r.outcomes.map((o) => o.action);

describe('an older event after a newer one that changed nothing', () => {
  it('sync v1 sets A, v3 declares A again (no write), delayed v2 with C: A stays', async () => {
    const dash = await makeDashboard(backend, 'gap-dash');
    const A = [declared(wh, 'Errors', 'A', 1)];
    const C = [declared(wh, 'Latency', 'C', 3)];
    const v1 = syncedEvent(dash, A, iso(1000));
    const v2 = syncedEvent(dash, C, iso(2000));
    const v3 = syncedEvent(dash, A, iso(3000));

    expect(actions(await instance().provision(v1))).toEqual(['created']);
    const before = alertWrites(sb);
    expect(actions(await instance().provision(v3))).toEqual(['unchanged']);
    expect(alertWrites(sb)).toBe(before); // the API saw no write...
    expect(parseMarker(alertsOn(dash)[0].message)?.version).toBe(iso(1000)); // ...the marker is old

    const late = await instance().provision(v2);
    expect(late.outcomes).toMatchObject([
      { action: 'stale', name: 'C', detail: `newer event ${iso(3000)} already seen` },
    ]);
    expect(late.writes).toBe(0);
    expect(alertWrites(sb)).toBe(before);
    expect(shape(dash)).toEqual(['A=1']);
  });

  it('a dashboard with no cloudops alerts left refuses an older sync that declares some', async () => {
    const dash = await makeDashboard(backend, 'gap-empty');
    await instance().provision(syncedEvent(dash, [declared(wh, 'Errors', 'A', 1)], iso(1000)));
    const emptied = await instance().provision(syncedEvent(dash, [], iso(3000)));
    expect(actions(emptied)).toEqual(['deleted']);
    const late = await instance().provision(
      syncedEvent(dash, [declared(wh, 'Latency', 'C', 3)], iso(2000)),
    );
    expect(actions(late)).toEqual(['stale']);
    expect(alertsOn(dash)).toEqual([]);
  });

  it('requests: v1 threshold 1, v3 threshold 1 again, delayed v2 threshold 50: 1 stays', async () => {
    const dash = await makeDashboard(backend, 'gap-request');
    const body = (n: number) => tileAlert(dash, 'Errors', wh, 'Req', n);
    await instance().provision(requestEvent('gap/req', body(1), iso(1000)));
    expect(
      actions(await instance().provision(requestEvent('gap/req', body(1), iso(3000)))),
    ).toEqual(['unchanged']);
    const late = await instance().provision(requestEvent('gap/req', body(50), iso(2000)));
    expect(actions(late)).toEqual(['stale']);
    expect(shape(dash)).toEqual(['Req=1']);
  });

  it('the same versions in the order they were made give the same end state', async () => {
    const dash = await makeDashboard(backend, 'gap-inorder');
    const p = instance();
    for (const [alerts, at] of [
      [[declared(wh, 'Errors', 'A', 1)], 1000],
      [[declared(wh, 'Latency', 'C', 3)], 2000],
      [[declared(wh, 'Errors', 'A', 1)], 3000],
    ] as const) {
      await p.provision(syncedEvent(dash, [...alerts], iso(at)));
    }
    expect(shape(dash)).toEqual(['A=1']);
  });
});

describe('nothing lost on a crash', () => {
  it('an event whose apply failed after it claimed its version applies on redelivery; older ones stay refused', async () => {
    const dash = await makeDashboard(backend, 'crash');
    const v2 = syncedEvent(dash, [declared(wh, 'Errors', 'B', 2)], iso(2000));
    // Every create fails (500s, retried by the client, then re-listed): the record fails.
    sb.faults.queue({ route: 'POST .*/alerts', kind: '500', count: 1000 });
    const failing = createAlertProvisioner({
      backend,
      versions: new DynamoVersionStore({ client: dynamo.client, tableName: VERSION_TABLE }),
      versionScope: `service/${sb.info.serviceId}`,
      maxCreateRounds: 1,
    });
    await expect(failing.provision(v2)).rejects.toThrow(/create not confirmed/);
    sb.faults.clear();
    expect(alertsOn(dash)).toEqual([]);

    // SQS redelivers the same event (another instance picks it up): version == stored.
    const again = await instance().provision(v2);
    expect(actions(again)).toEqual(['created']);
    expect(shape(dash)).toEqual(['B=2']);
    const older = await instance().provision(
      syncedEvent(dash, [declared(wh, 'Errors', 'B', 99)], iso(1000)),
    );
    expect(actions(older)).toEqual(['stale']);
    expect(shape(dash)).toEqual(['B=2']);
  });
});

describe('overtaken while applying', () => {
  it('an event that a newer one overtakes between its list and its writes stops without writing', async () => {
    const dash = await makeDashboard(backend, 'overtaken');
    // v2 lists, then waits; v3 runs to the end on another instance; then v2 goes on.
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let listed!: () => void;
    const hasListed = new Promise<void>((resolve) => (listed = resolve));
    const slow: ObservabilityBackend = {
      ...backend,
      mode: backend.mode,
      listAlerts: async (o) => {
        const alerts = await backend.listAlerts(o);
        listed();
        await paused;
        return alerts;
      },
    };
    const v2: AlertEvent = syncedEvent(
      dash,
      [declared(wh, 'Errors', 'X', 2), declared(wh, 'Latency', 'Y', 2)],
      iso(2000),
    );
    const v3: AlertEvent = syncedEvent(dash, [declared(wh, 'Errors', 'X', 3)], iso(3000));
    const running = instance(slow).provision(v2);
    await hasListed;
    expect(actions(await instance().provision(v3))).toEqual(['created']);
    const before = alertWrites(sb);
    release();
    const r = await running;
    expect(r.writes).toBe(0);
    expect(r.outcomes.map((o) => [o.name, o.action])).toEqual([
      ['X', 'stale'],
      ['Y', 'stale'],
    ]);
    expect(alertWrites(sb)).toBe(before);
    expect(shape(dash)).toEqual(['X=3']);
  });
});

describe('versions from the future', () => {
  it('an event dated beyond the allowed clock skew fails, naming the field, and records nothing', async () => {
    const dash = await makeDashboard(backend, 'future');
    const versions = new DynamoVersionStore({ client: dynamo.client, tableName: VERSION_TABLE });
    const p = createAlertProvisioner({
      backend,
      versions,
      versionScope: 'future',
      now: () => Date.parse(iso(0)),
      maxClockSkewMs: 60_000,
    });
    const before = alertWrites(sb);
    const ahead = syncedEvent(dash, [declared(wh, 'Errors', 'F', 1)], iso(61_000));
    await expect(p.provision(ahead, { ref: 'msg-f' })).rejects.toThrow(
      /^Dashboard Synced event msg-f: detail\.syncedAt: 2025-01-01T00:01:01\.000Z is in the future/,
    );
    const request = requestEvent('future/1', tileAlert(dash, 'Errors', wh, 'F', 1), iso(120_000));
    await expect(p.provision(request)).rejects.toThrow(/: time: .* is in the future/);
    expect(await versions.get('future#d/dashboards%2Ffuture.yaml')).toBeUndefined();
    expect(alertWrites(sb)).toBe(before);
    // Within the skew it is applied.
    const r = await p.provision(syncedEvent(dash, [declared(wh, 'Errors', 'F', 1)], iso(59_000)));
    expect(actions(r)).toEqual(['created']);
  });
});
