/**
 * Alert provisioning against both sandbox profiles (issue 15): `current` answers with today's
 * link names, silenced objects, an unnamed alert and paginated `/api/v2` lists; `spec` is the
 * old snapshot. Also the convergence rules of issue 16 §4 and the request counts of issue 11.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAlertProvisioner,
  MemoryVersionStore,
  parseMarker,
  provisionBatch,
} from '../../lib/alerts';
import type { ObservabilityBackend } from '../../lib/api';
import { alertLinks, type Dashboard } from '../../lib/schemas';
import type { Sandbox, SandboxProfile } from '../../sandbox/index';
import { sandboxClients } from '../support/sandbox-clients';
import { declared, iso, syncedEvent } from './alert-events';
import { alertWrites, backendFor, sandbox, storedAlerts } from './alerts-helpers';

describe.each(['current', 'spec'] as const)(
  'alerts on the %s profile',
  (profile: SandboxProfile) => {
    let sb: Sandbox;
    let backend: ObservabilityBackend;
    let wh: string;

    beforeAll(async () => {
      sb = await sandbox({ profile });
      backend = backendFor(sb);
      wh = sb.info.webhookId;
    });
    afterAll(async () => {
      await sb.close();
    });

    const onDash = (d: Dashboard) =>
      storedAlerts(sb).filter((a) => alertLinks(a).dashboardId === d.id);
    const apiRequests = () =>
      sb.requestLog
        .entries()
        .filter((e) => e.surface === 'management' || e.surface === 'observability');

    /** Tiles valid on both profiles (the current service needs sourceId, where, whereLanguage). */
    function makeDashboard(name: string, tiles = ['Errors', 'Latency', 'Throughput']) {
      return backend.createDashboard({
        name,
        tiles: tiles.map((t, i) => ({
          name: t,
          x: (i % 4) * 6,
          y: Math.floor(i / 4) * 4,
          w: 6,
          h: 4,
          series: [
            {
              type: 'time',
              dataSource: 'logs',
              aggFn: 'count',
              ...(profile === 'current'
                ? { sourceId: sb.info.sourceId, where: '', whereLanguage: 'lucene', groupBy: [] }
                : {}),
            },
          ],
        })),
      });
    }

    it('lists through both APIs despite silenced and unnamed alerts, and leaves them alone', async () => {
      const before = storedAlerts(sb);
      const open = sandboxClients(sb.info, { label: 'open', timeoutMs: 2_000 });
      try {
        expect((await open.observability.listAlerts()).map((a) => a.id).sort()).toEqual(
          before.map((a) => a.id).sort(),
        );
      } finally {
        open.close();
      }
      expect((await backend.listAlerts()).length).toBe(before.length);
      const dash = await makeDashboard('seeded-neighbours');
      await createAlertProvisioner({ backend, versions: new MemoryVersionStore() }).provision(
        syncedEvent(dash, [declared(wh, 'Errors', 'A', 1)], iso(1000)),
      );
      const after = storedAlerts(sb);
      for (const a of before) expect(after.find((x) => x.id === a.id)).toEqual(a);
    });

    it("an alert-bearing tile's alert survives 10 syncs; after the first, nothing is written", async () => {
      const dash = await makeDashboard('ten-syncs');
      const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
      const alerts = [declared(wh, 'Errors', 'E', 1), declared(wh, 'Latency', 'L', 2)];
      let ids: string[] | undefined;
      const writes: number[] = [];
      for (let cycle = 0; cycle < 10; cycle += 1) {
        // The dashboard sync resends every tile with its id, in the form the service answers.
        const seen = await backend.getDashboard(dash.id);
        const synced = await backend.updateDashboard(dash.id, {
          name: seen.name,
          tiles: seen.tiles,
        });
        const before = alertWrites(sb);
        // A fresh version store each cycle: the alert list itself must show nothing to do.
        await createAlertProvisioner({ backend, versions: new MemoryVersionStore() }).provision(
          syncedEvent(synced, alerts, iso(1000 * (cycle + 1))),
        );
        await provisioner.provision(syncedEvent(synced, alerts, iso(1000 * (cycle + 1))));
        writes.push(alertWrites(sb) - before);
        const now = onDash(dash)
          .map((a) => a.id)
          .sort();
        if (ids) expect(now).toEqual(ids);
        ids = now;
      }
      expect(ids).toHaveLength(2);
      expect(writes).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    });

    it('a marker edited away is re-adopted (same alert, marker back), never duplicated', async () => {
      const dash = await makeDashboard('edited-marker');
      const declaredA = [declared(wh, 'Errors', 'A', 1)];
      const p = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
      await p.provision(syncedEvent(dash, declaredA, iso(1000)));
      const [original] = onDash(dash);
      // Someone edits the message in the UI and drops the marker line.
      const row = sb.store.state.alerts.find((a) => a.id === original.id)!;
      row.message = 'edited by hand';
      sb.store.changed();
      // The next pass that looks (here another instance without the settled record) adopts it.
      const r = await createAlertProvisioner({
        backend,
        versions: new MemoryVersionStore(),
      }).provision(syncedEvent(dash, declaredA, iso(2000)));
      expect(r.outcomes.map((o) => o.action)).toEqual(['adopted']);
      const now = onDash(dash);
      expect(now.map((a) => a.id)).toEqual([original.id]);
      expect(parseMarker(now[0].message)?.version).toBe(iso(2000));
      expect(now[0].message).toMatch(/^A fired\n\[cloudops:/);
    });

    it('a batch of 10 events x 20 alerts: 200 creates and 2 lists; the same batch again: 1 list', async () => {
      const names = Array.from({ length: 20 }, (_, i) => `tile ${i}`);
      const dashes: Dashboard[] = [];
      for (let i = 0; i < 10; i += 1) dashes.push(await makeDashboard(`batch-${i}`, names));
      const events = (at: string) =>
        dashes.map((d, i) => ({
          messageId: `m${i}`,
          body: JSON.stringify(
            syncedEvent(
              d,
              names.map((t, k) => declared(wh, t, `alert ${k}`, k)),
              at,
            ),
          ),
        }));
      const count = async (run: () => Promise<unknown>) => {
        sb.requestLog.clear();
        await run();
        const log = apiRequests();
        return {
          lists: log.filter((e) => e.method === 'GET').length,
          writes: log.filter((e) => e.method !== 'GET').length,
        };
      };
      // No settled record (a fresh store each time): what the alert list alone costs.
      const fresh = () => createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
      const first = await count(async () => {
        const out = await provisionBatch(events(iso(1000)), fresh());
        expect(out.batchItemFailures).toEqual([]);
      });
      expect(first).toEqual({ lists: 2, writes: 200 });
      expect(await count(() => provisionBatch(events(iso(2000)), fresh()))).toEqual({
        lists: 1,
        writes: 0,
      });
      // With the version store's settled record: no request at all.
      const p = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
      await provisionBatch(events(iso(3000)), p);
      expect(await count(() => provisionBatch(events(iso(4000)), p))).toEqual({
        lists: 0,
        writes: 0,
      });
      expect(dashes.flatMap((d) => onDash(d))).toHaveLength(200);
    }, 60_000);
  },
);
