/**
 * Issue 16 §4: a create whose answer was lost is applied by the service only after a newer
 * declaration of the same dashboard listed the alerts. The newer declaration no longer declares
 * that alert, and every event that arrives for the dashboard afterwards is older (the failed
 * event's redelivery). The redelivery must plan against the newest declaration kept in the
 * version store and remove the late alert, without touching what the newest one declares
 * (whose markers may be older: unchanged alerts are not rewritten).
 *
 * Deterministic: the "late" create is held by a wrapper around the real backend (the request
 * never leaves; the caller sees a timeout) and sent to the sandbox when the test says so.
 * Each instance is a separate Lambda (own mutex); the version store is shared: DynamoDB
 * (dynalite, real SDK), the CLI's file, the in-memory one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError, type ObservabilityBackend } from '../../lib/api';
import {
  createAlertProvisioner,
  DynamoVersionStore,
  FileVersionStore,
  KeyedMutex,
  MemoryVersionStore,
  parseMarker,
  provisionBatch,
  type VersionStore,
} from '../../lib/alerts';
import type { QueueRecord } from '../../lib/alerts/batch';
import type { AlertEvent } from '../../lib/events';
import { alertLinks, type Alert, type CreateAlertBody, type Dashboard } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import type { LocalDynamo } from '../support/local-dynamo';
import { declared, iso, syncedEvent, tileAlert } from './alert-events';
import {
  backendFor,
  sandbox,
  sandboxWithVersions,
  storedAlerts,
  VERSION_TABLE,
} from './alerts-helpers';

let spec: Sandbox;
let current: Sandbox;
let dynamo: LocalDynamo;
let dir: string;

beforeAll(async () => {
  ({ sb: spec, dynamo } = await sandboxWithVersions());
  current = await sandbox({ profile: 'current' });
  dir = mkdtempSync(path.join(tmpdir(), 'alerts-late-'));
});
afterAll(async () => {
  await Promise.all([spec.close(), current.close(), dynamo.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Holds the first create of alert `name`: the caller times out (after `meanwhile` ran), the
 * service applies it later.
 */
function withLateCreate(
  backend: ObservabilityBackend,
  name: string,
  meanwhile: () => Promise<unknown> = () => Promise.resolve(),
) {
  let held: CreateAlertBody | undefined;
  let seen = false;
  const wrapped: ObservabilityBackend = {
    ...backend,
    async createAlert(body, opts) {
      if (seen || body.name !== name) return backend.createAlert(body, opts);
      seen = true;
      held = body;
      await meanwhile();
      const path = '/observability/alerts';
      throw new TransportError(`POST ${path} timeout: no complete answer in time`, {
        method: 'POST',
        path,
        kind: 'timeout',
        maybeSent: true,
      });
    },
  };
  return {
    backend: wrapped,
    /** The service applies the held create now. */
    async land(): Promise<Alert> {
      if (!held) throw new Error('test set-up: nothing held');
      return backend.createAlert(held);
    },
  };
}

const stores: [string, () => VersionStore][] = [
  ['dynamodb', () => new DynamoVersionStore({ client: dynamo.client, tableName: VERSION_TABLE })],
  ['file', () => new FileVersionStore(path.join(dir, `${Math.random()}.json`))],
  ['memory', () => new MemoryVersionStore()],
];

const record = (id: string, event: AlertEvent, receiveCount = 1): QueueRecord => ({
  messageId: id,
  body: JSON.stringify(event),
  receiveCount,
});

/** Tiles valid on both profiles (the current service needs sourceId, where, whereLanguage). */
function dashboardOn(sb: Sandbox, backend: ObservabilityBackend): Promise<Dashboard> {
  const extra =
    sb === current
      ? { sourceId: sb.info.sourceId, where: '', whereLanguage: 'lucene', groupBy: [] }
      : {};
  return backend.createDashboard({
    name: `late-${Math.random().toString(36).slice(2, 8)}`,
    tiles: ['Errors', 'Latency'].map((name, i) => ({
      name,
      x: i * 6,
      y: 0,
      w: 6,
      h: 4,
      series: [{ type: 'time', dataSource: 'logs', aggFn: 'count', ...extra }],
    })),
  });
}

/** Marked alerts on the dashboard: "name=threshold@markerVersion". */
function ours(sb: Sandbox, dash: Dashboard): string[] {
  return storedAlerts(sb)
    .filter((a) => alertLinks(a).dashboardId === dash.id && parseMarker(a.message))
    .map((a) => `${a.name}=${a.threshold}@${parseMarker(a.message)!.version}`)
    .sort();
}

describe.each([
  ...stores.map(([name, store]) => [`${name} store, spec profile`, () => spec, store] as const),
  ['dynamodb store, current profile', () => current, stores[0][1]] as const,
])('late create of a superseded declaration (%s)', (_label, sbOf, storeOf) => {
  it('is removed by the older event redelivered after it landed', async () => {
    const sb = sbOf();
    const real = backendFor(sb);
    const wh = sb.info.webhookId;
    const dash = await dashboardOn(sb, real);
    const hand = await real.createAlert(tileAlert(dash, 'Latency', wh, 'by hand', 2));
    const versions = storeOf();
    const late = withLateCreate(real, 'B');
    // Separate instances (Lambda invocations), one shared version store.
    const instance = (backend: ObservabilityBackend) =>
      createAlertProvisioner({ backend, versions, mutex: new KeyedMutex() });

    // v1 declares A and B; B's create times out (held), its retry lands: the record fails.
    const v1 = syncedEvent(
      dash,
      [declared(wh, 'Errors', 'A', 1), declared(wh, 'Latency', 'B', 2)],
      iso(1000),
    );
    const first = await provisionBatch([record('m1', v1)], instance(late.backend));
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(first.records[0].reason).toMatch(/"B".*may still land/);

    // v2 no longer declares B (A unchanged: its marker stays at v1); it removes the copy it sees.
    const v2 = syncedEvent(dash, [declared(wh, 'Errors', 'A', 1)], iso(2000));
    const second = await provisionBatch([record('m2', v2)], instance(real));
    expect(second.batchItemFailures).toEqual([]);
    expect(ours(sb, dash)).toEqual([`A=1@${iso(1000)}`]);

    // Only now does the service apply v1's first create of B.
    const orphan = await late.land();
    expect(ours(sb, dash)).toEqual([`A=1@${iso(1000)}`, `B=2@${iso(1000)}`]);

    // v1 comes back (stale): B goes, A (older marker, still declared) and the hand-made alert stay.
    const again = await provisionBatch([record('m1', v1, 2)], instance(real));
    expect(again.batchItemFailures).toEqual([]);
    expect(again.records[0].result?.outcomes).toContainEqual(
      expect.objectContaining({ action: 'deleted', alertId: orphan.id, name: 'B' }),
    );
    expect(ours(sb, dash)).toEqual([`A=1@${iso(1000)}`]);
    expect(storedAlerts(sb).find((a) => a.id === hand.id)?.message).toBe(hand.message);
  });

  it('an event overtaken while its create hangs fails, and its redelivery removes the late alert', async () => {
    const sb = sbOf();
    const real = backendFor(sb);
    const wh = sb.info.webhookId;
    const dash = await dashboardOn(sb, real);
    const versions = storeOf();
    const instance = (backend: ObservabilityBackend) =>
      createAlertProvisioner({ backend, versions, mutex: new KeyedMutex() });
    const v1 = syncedEvent(
      dash,
      [declared(wh, 'Errors', 'A', 1), declared(wh, 'Latency', 'B', 2)],
      iso(1000),
    );
    const v2 = syncedEvent(dash, [declared(wh, 'Latency', 'B', 3)], iso(2000));
    // While v1's create of A hangs, another instance applies v2 (which no longer declares A).
    const late = withLateCreate(real, 'A', () =>
      provisionBatch([record('m2', v2)], instance(real)),
    );

    const first = await provisionBatch([record('m1', v1)], instance(late.backend));
    // Overtaken before creating B; but A may still land, so the record must come back.
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(first.records[0].reason).toMatch(/"A".*may still land/);
    expect(ours(sb, dash)).toEqual([`B=3@${iso(2000)}`]);

    const orphan = await late.land();
    const again = await provisionBatch([record('m1', v1, 2)], instance(real));
    expect(again.batchItemFailures).toEqual([]);
    expect(again.records[0].result?.outcomes).toContainEqual(
      expect.objectContaining({ action: 'deleted', alertId: orphan.id, name: 'A' }),
    );
    expect(ours(sb, dash)).toEqual([`B=3@${iso(2000)}`]);
  });
});
