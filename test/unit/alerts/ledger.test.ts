/**
 * The ledger a deployed dashboard sync shares with provision-alerts (one version store): what
 * the sync records must be what provision-alerts reads, or a no-op run lists the alerts again
 * and provision-alerts re-applies events the sync already applied.
 */
import { describe, expect, it } from 'vitest';
import {
  createAlertProvisioner,
  MemoryVersionStore,
  TileAlertLedger,
  versionScope,
} from '../../../lib/alerts';
import { dashboardVersionOwner } from '../../../lib/alerts/desired';
import { scopedKey } from '../../../lib/alerts/versions';
import type { ObservabilityBackend } from '../../../lib/api';
import type { DashboardSyncedEvent } from '../../../lib/events';

const SCOPE = versionScope({ mode: 'managed', serviceId: 'svc-1' });
const V1 = '2025-01-01T00:00:01.000Z';
const V2 = '2025-01-01T00:00:02.000Z';

function event(version: string, threshold = 10): DashboardSyncedEvent {
  return {
    source: 'cloudops',
    'detail-type': 'Dashboard Synced',
    time: version,
    detail: {
      dashboardKey: 'dashboards/a.yaml',
      dashboardId: 'd1',
      name: 'A',
      sourceFile: 'dashboards/a.yaml',
      syncedAt: version,
      tiles: [{ name: 'Errors', id: 't1' }],
      alerts: [
        {
          tileName: 'Errors',
          name: 'E',
          threshold,
          thresholdType: 'above',
          interval: '5m',
          channel: { type: 'webhook', webhookId: 'w1' },
        },
      ],
    },
  };
}

/** A backend that answers nothing: any request is a failure of the test. */
function noRequests(): ObservabilityBackend & { calls: string[] } {
  const calls: string[] = [];
  const refuse = (name: string) => () => {
    calls.push(name);
    return Promise.reject(new Error(`unexpected request: ${name}`));
  };
  return {
    mode: 'managed',
    calls,
    listDashboards: refuse('listDashboards'),
    getDashboard: refuse('getDashboard'),
    createDashboard: refuse('createDashboard'),
    updateDashboard: refuse('updateDashboard'),
    deleteDashboard: refuse('deleteDashboard'),
    listAlerts: refuse('listAlerts'),
    getAlert: refuse('getAlert'),
    createAlert: refuse('createAlert'),
    updateAlert: refuse('updateAlert'),
    deleteAlert: refuse('deleteAlert'),
  };
}

describe('TileAlertLedger', () => {
  it('what the sync settles, provision-alerts skips without a request', async () => {
    const store = new MemoryVersionStore();
    const ledger = new TileAlertLedger(store, SCOPE);
    expect(await ledger.claim('dashboards/a.yaml', V1)).toBe(true);
    await ledger.settle(event(V1));
    const backend = noRequests();
    const provisioner = createAlertProvisioner({ backend, versions: store, versionScope: SCOPE });
    const result = await provisioner.provision(event(V1));
    expect(result.outcomes.map((o) => [o.action, o.detail])).toEqual([
      ['unchanged', 'as last applied'],
    ]);
    expect(backend.calls).toEqual([]);
  });

  it('an event is settled when it asks for what was settled and nothing newer was claimed', async () => {
    const ledger = new TileAlertLedger(new MemoryVersionStore(), SCOPE);
    expect(await ledger.settled(event(V1))).toBe(false);
    await ledger.claim('dashboards/a.yaml', V1);
    await ledger.settle(event(V1));
    // The version is not part of what is compared: a later run asking the same is settled.
    expect(await ledger.settled(event(V2))).toBe(true);
    expect(await ledger.settled(event(V2, 11))).toBe(false);
    // A newer event claimed the alerts (its apply not finished): no longer settled.
    expect(await ledger.claim('dashboards/a.yaml', V2)).toBe(true);
    expect(await ledger.settled(event(V2))).toBe(false);
  });

  it('a claim older than the newest one is refused; the same version is not', async () => {
    const ledger = new TileAlertLedger(new MemoryVersionStore(), SCOPE);
    expect(await ledger.claim('dashboards/a.yaml', V2)).toBe(true);
    expect(await ledger.claim('dashboards/a.yaml', V1)).toBe(false);
    expect(await ledger.claim('dashboards/a.yaml', V2)).toBe(true);
  });

  it('a settle without the claim records nothing (an older run must not mark a newer one)', async () => {
    const store = new MemoryVersionStore();
    const ledger = new TileAlertLedger(store, SCOPE);
    await ledger.claim('dashboards/a.yaml', V2);
    await ledger.settle(event(V1));
    // Asked of the store: the ledger's own answer is false for V1 whatever was written.
    const key = scopedKey(SCOPE, dashboardVersionOwner('dashboards/a.yaml'));
    expect(await store.settled(key)).toBeUndefined();
  });

  it('records are per scope: another service does not see them', async () => {
    const store = new MemoryVersionStore();
    const here = new TileAlertLedger(store, SCOPE);
    const there = new TileAlertLedger(store, versionScope({ mode: 'managed', serviceId: 'svc-2' }));
    await here.claim('dashboards/a.yaml', V1);
    await here.settle(event(V1));
    expect(await here.settled(event(V1))).toBe(true);
    expect(await there.settled(event(V1))).toBe(false);
  });
});
