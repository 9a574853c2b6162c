/**
 * Under injected faults (429, 500, HTML 504, resets, truncated answers whose write was
 * applied) the end state equals the fault-free end state, with no duplicate alerts. Each
 * event is redelivered until it succeeds, as SQS does with a failed record.
 */
import { describe, expect, it } from 'vitest';
import type { ObservabilityBackend } from '../../lib/api';
import {
  createAlertProvisioner,
  MemoryVersionStore,
  parseMarker,
  ownerId,
  type AlertProvisioner,
} from '../../lib/alerts';
import type { AlertEvent } from '../../lib/events';
import type { Sandbox } from '../../sandbox/index';
import { closeAfterEach } from '../support/close-after-each';
import { declared, iso, requestEvent, syncedEvent, tileAlert } from './alert-events';
import { backendFor, makeDashboard, sandbox, storedAlerts } from './alerts-helpers';

const open = closeAfterEach<Sandbox>();

interface Run {
  state: string[];
  deliveries: number;
  faulted: number;
  truncatedCreates: number;
  owners: string[];
}

const details: string[] = [];

async function deliver(p: AlertProvisioner, event: AlertEvent, ref: string): Promise<number> {
  for (let attempt = 1; attempt <= 25; attempt += 1) {
    try {
      const r = await p.provision(event, { ref });
      details.push(...r.outcomes.map((o) => `${o.action} ${o.detail ?? ''}`));
      return attempt;
    } catch (error) {
      // The record goes back to the queue and comes again; what it did still counts.
      const r = (error as { result?: { outcomes: { action: string; detail?: string }[] } }).result;
      details.push(...(r?.outcomes ?? []).map((o) => `${o.action} ${o.detail ?? ''}`));
    }
  }
  throw new Error(`event ${ref} never succeeded`);
}

async function scenario(withFaults: boolean): Promise<Run> {
  const sb = await sandbox();
  open.push(sb);
  const backend: ObservabilityBackend = backendFor(sb);
  const wh = sb.info.webhookId;
  const dash = await makeDashboard(backend, 'faults');
  const hand = await backend.createAlert(tileAlert(dash, 'Errors', wh, 'by hand', 7));
  const tileName = new Map(dash.tiles.map((t) => [t.id, t.name]));

  const firstSync = syncedEvent(
    dash,
    [
      declared(wh, 'Errors', 'A', 1),
      declared(wh, 'Latency', 'B', 2),
      declared(wh, 'Throughput', 'C', 3),
    ],
    iso(1000),
  );
  const firstRequest = requestEvent('k1', tileAlert(dash, 'Latency', wh, 'R1', 10), iso(1000));
  const secondSync = syncedEvent(
    dash,
    [
      declared(wh, 'Errors', 'A', 11, { interval: '15m' }),
      declared(wh, 'Latency', 'B', 2),
      declared(wh, 'Errors', 'D', 4),
    ],
    iso(2000),
  );
  const events: AlertEvent[] = [
    firstSync,
    firstRequest,
    secondSync,
    requestEvent('k1', tileAlert(dash, 'Latency', wh, 'R1', 20), iso(3000)),
    // Delayed copies of older events: must change nothing.
    firstSync,
    firstRequest,
    requestEvent('k2', tileAlert(dash, 'Throughput', wh, 'R2', 30), iso(3000)),
    secondSync,
  ];

  if (withFaults) {
    // Every kind on the create path for sure, then random faults on every alert request.
    for (const kind of ['truncate', '500', 'reset', '429', 'html504', 'truncate'] as const) {
      sb.faults.queue({ route: 'POST .*/alerts', kind });
    }
    sb.faults.queue({ route: 'PUT .*/alerts/.*', kind: 'truncate' });
    sb.faults.queue({ route: 'DELETE .*/alerts/.*', kind: 'reset' });
    sb.faults.set({
      seed: 42,
      rate: 0.3,
      kinds: ['500', 'html504', 'reset', 'truncate', '429'],
      routes: '(GET|POST|PUT|DELETE) .*/alerts.*',
    });
  }
  const p = createAlertProvisioner({ backend, versions: new MemoryVersionStore() });
  let deliveries = 0;
  for (const [i, e] of events.entries()) deliveries += await deliver(p, e, `e${i}`);
  sb.faults.clear();

  const alerts = storedAlerts(sb);
  expect(alerts.some((a) => a.id === hand.id && a.message === 'by hand!')).toBe(true);
  return {
    state: alerts
      .map((a) =>
        JSON.stringify([
          a.name,
          tileName.get(a.tileId ?? ''),
          a.threshold,
          a.interval,
          a.thresholdType,
          a.channel?.webhookId === wh ? 'the webhook' : a.channel,
          a.message,
        ]),
      )
      .sort(),
    deliveries,
    faulted: sb.requestLog.entries().filter((e) => e.fault && e.fault !== 'latency').length,
    // Creates the server applied but whose answer was cut off: a blind retry would duplicate.
    truncatedCreates: sb.requestLog
      .entries()
      .filter((e) => e.method === 'POST' && e.path.endsWith('/alerts') && e.fault === 'truncate')
      .length,
    owners: alerts.flatMap((a) => {
      const m = parseMarker(a.message);
      return m ? [ownerId(m.owner)] : [];
    }),
  };
}

describe('alert provisioning under injected faults', () => {
  it('ends in the fault-free end state with no duplicates', async () => {
    const clean = await scenario(false);
    details.length = 0;
    const faulty = await scenario(true);
    expect(faulty.truncatedCreates).toBeGreaterThanOrEqual(2);
    expect(
      details.filter((d) => d === 'created confirmed by re-list').length,
    ).toBeGreaterThanOrEqual(2);
    expect(clean.deliveries).toBe(8);
    expect(faulty.faulted).toBeGreaterThanOrEqual(8);
    expect(faulty.state).toEqual(clean.state);
    expect(new Set(faulty.owners).size).toBe(faulty.owners.length);
    expect(clean.owners.sort()).toEqual(
      [
        'd/dashboards%2Ffaults.yaml/Errors/A',
        'd/dashboards%2Ffaults.yaml/Latency/B',
        'd/dashboards%2Ffaults.yaml/Errors/D',
        'r/k1',
        'r/k2',
      ].sort(),
    );
    console.log(`faults: ${faulty.faulted} injected, ${faulty.deliveries} deliveries for 8 events`);
  }, 60_000);
});
