/**
 * Alert provisioning under seeded faults: Dashboard Synced and Alert Provision Requested
 * events go through the queue handler's batch function (provisionBatch); a failed record is
 * redelivered later, behind the others, as SQS does. The end state must equal the fault-free
 * one: one alert per declaration, the same fields, the hand-made alert untouched.
 */
import { describe, expect, it } from 'vitest';
import {
  createAlertProvisioner,
  MemoryVersionStore,
  ownerId,
  parseMarker,
  provisionBatch,
} from '../../lib/alerts';
import type { QueueRecord } from '../../lib/alerts/batch';
import type { AlertEvent } from '../../lib/events';
import type { Dashboard } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import { declared, iso, requestEvent, syncedEvent, tileAlert } from '../integration/alert-events';
import { makeDashboard, storedAlerts } from '../integration/alerts-helpers';
import { closeAfterEach } from '../support/close-after-each';
import { sandboxClients } from '../support/sandbox-clients';
import {
  backendFor,
  describeTrace,
  faultSandbox,
  faultTrace,
  RATES,
  RETRY,
  seededRuns,
  settle,
  spec,
} from './helpers';

const open = closeAfterEach<Sandbox>();

/** Two dashboards' snapshots (with newer and delayed older copies) and two requested alerts. */
function events(a: Dashboard, b: Dashboard, wh: string): AlertEvent[] {
  const v1 = [declared(wh, 'Errors', 'A', 1), declared(wh, 'Latency', 'B', 2)];
  const v2 = [
    declared(wh, 'Errors', 'A', 11, { interval: '15m' }),
    declared(wh, 'Throughput', 'C', 3),
  ];
  return [
    syncedEvent(a, v1, iso(1000)),
    syncedEvent(b, [declared(wh, 'Latency', 'L', 5), declared(wh, 'Errors', 'E', 6)], iso(1000)),
    requestEvent('k1', tileAlert(a, 'Latency', wh, 'R1', 10), iso(1000)),
    syncedEvent(a, v2, iso(2000)),
    requestEvent('k1', tileAlert(a, 'Latency', wh, 'R1', 20), iso(3000)),
    syncedEvent(a, v1, iso(1000)), // a delayed older copy: changes nothing
    requestEvent('k2', tileAlert(b, 'Throughput', wh, 'R2', 30), iso(3000)),
    syncedEvent(b, [declared(wh, 'Latency', 'L', 7)], iso(2500)),
    requestEvent('k1', tileAlert(a, 'Latency', wh, 'R1', 10), iso(1000)), // older: stale
  ];
}

interface Outcome {
  state: string[];
  owners: string[];
  deliveries: number;
}

/**
 * Fault-free requests (set-up, the baseline) with a timeout no machine load reaches: the
 * suite's 200 ms timeout exists to turn latency faults into timeouts, and on a busy machine
 * it also cut fault-free requests, so the baseline was not fault-free.
 */
function calmBackend(sb: Sandbox) {
  const clients = sandboxClients(sb.info, {
    label: 'fault-suite',
    retry: RETRY,
    timeoutMs: 10_000,
  });
  return { ...clients.backend, close: () => clients.close() };
}

async function scenario(rate: number | undefined, seed: number): Promise<Outcome> {
  const sb = await faultSandbox();
  open.push(sb);
  const setup = calmBackend(sb);
  const backend = rate === undefined ? setup : backendFor(sb);
  const wh = sb.info.webhookId;
  const a = await makeDashboard(setup, 'faults-a');
  const b = await makeDashboard(setup, 'faults-b');
  const hand = await setup.createAlert(tileAlert(a, 'Errors', wh, 'by hand', 7));
  const tileName = new Map([...a.tiles, ...b.tiles].map((t) => [t.id, `${t.name}`]));
  const dashName = new Map([a, b].map((d) => [d.id, d.name]));

  if (rate !== undefined) sb.faults.set(spec(seed, rate));
  const provisioner = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
  let queue: QueueRecord[] = events(a, b, wh).map((e, i) => ({
    messageId: `m${i}`,
    body: JSON.stringify(e),
  }));
  let deliveries = 0;
  for (let round = 1; queue.length > 0; round += 1) {
    if (round > 30)
      throw new Error(`alert events never all succeeded (seed ${seed}, rate ${rate})`);
    // Batches of up to 3 records; failed records come back after the rest of the queue and
    // after the visibility timeout (which outlasts a delayed write), counted as redeliveries.
    if (round > 1) await settle();
    const failed: QueueRecord[] = [];
    for (let i = 0; i < queue.length; i += 3) {
      const batch = queue.slice(i, i + 3);
      deliveries += batch.length;
      const out = await provisionBatch(batch, provisioner);
      const bad = new Set(out.batchItemFailures.map((f) => f.itemIdentifier));
      failed.push(
        ...batch
          .filter((r) => bad.has(r.messageId))
          .map((r) => ({ ...r, receiveCount: (r.receiveCount ?? 1) + 1 })),
      );
    }
    queue = failed;
  }
  sb.faults.clear();
  if (backend !== setup) backend.close();
  setup.close();
  if (rate !== undefined) console.log(describeTrace(`alerts rate ${rate}`, faultTrace(sb)));

  const alerts = storedAlerts(sb);
  expect(alerts.some((x) => x.id === hand.id && x.message === 'by hand!')).toBe(true);
  return {
    state: alerts
      .map((x) =>
        JSON.stringify([
          x.name,
          dashName.get(x.dashboard ?? ''),
          tileName.get(x.tileId ?? ''),
          x.threshold,
          x.interval,
          x.thresholdType,
          x.channel?.webhookId === wh ? 'the webhook' : x.channel,
          x.message,
        ]),
      )
      .sort(),
    owners: alerts.flatMap((x) => {
      const m = parseMarker(x.message);
      return m ? [ownerId(m.owner)] : [];
    }),
    deliveries,
  };
}

describe('alert provisioning under seeded faults', () => {
  const { seed, baseline } = seededRuns(scenario);

  it('fault-free: every event succeeds first time, one alert per declaration', async () => {
    const c = await baseline();
    expect(c.deliveries).toBe(9);
    expect(c.owners.sort()).toEqual(
      [
        'd/dashboards%2Ffaults-a.yaml/Errors/A',
        'd/dashboards%2Ffaults-a.yaml/Throughput/C',
        'd/dashboards%2Ffaults-b.yaml/Latency/L',
        'r/k1',
        'r/k2',
      ].sort(),
    );
  });

  for (const rate of RATES) {
    it(`rate ${rate * 100} %, seed ${seed}: same alerts as without faults, no duplicates`, async () => {
      const c = await baseline();
      const faulty = await scenario(rate, seed);
      console.log(`alerts rate ${rate}: ${faulty.deliveries} deliveries for 9 events`);
      expect(new Set(faulty.owners).size).toBe(faulty.owners.length);
      expect(faulty.state).toEqual(c.state);
    });
  }
});
