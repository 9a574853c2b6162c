/** planAlerts(): desired + observed -> steps, without I/O (issue 14). */
import { describe, expect, it } from 'vitest';
import {
  compactDeclaration,
  formatMarker,
  ownerId,
  planAlerts,
  withMarker,
  type AlertStep,
} from '../../../lib/alerts';
import type { Alert } from '../../../lib/schemas';
import { KEY, synced, V1, V2, V3 } from './plan-fixtures';

const owner = (tileName: string, alertName: string) => ({
  kind: 'dashboard' as const,
  dashboardKey: KEY,
  tileName,
  alertName,
});

/** An alert as the current service answers, written by cloudops at `version`. */
function stored(
  id: string,
  tile: string,
  name: string,
  version: string | undefined,
  extra: Partial<Alert> = {},
): Alert {
  const tileId = tile === 'Errors' ? 't1' : 't2';
  return {
    id,
    name,
    message: version
      ? withMarker(`${name} fired`, { owner: owner(tile, name), version })
      : `${name} fired`,
    threshold: 10,
    interval: '5m',
    thresholdType: 'above',
    source: 'tile',
    channel: { type: 'webhook', webhookId: 'w1' },
    dashboardId: 'd1',
    tileId,
    createdAt: `2025-01-01T00:00:0${id.length}.000Z`,
    ...extra,
  };
}

const kinds = (steps: AlertStep[]) =>
  steps.map((s) =>
    s.kind === 'report'
      ? `${s.outcome.action} ${s.outcome.name}${s.outcome.detail ? ` (${s.outcome.detail})` : ''}`
      : s.kind === 'delete'
        ? `${s.action} ${s.alertId}`
        : s.kind === 'update'
          ? `${s.action} ${s.alertId}: ${s.detail}`
          : `create ${s.desired.body.name}`,
  );

describe('planAlerts', () => {
  it('creates what is missing, with the marker of the event version as the last line', () => {
    const steps = planAlerts({
      desired: synced(V1, [{ tile: 'Errors', name: 'A' }]),
      observed: [],
    });
    expect(kinds(steps)).toEqual(['create A']);
    const create = steps[0] as Extract<AlertStep, { kind: 'create' }>;
    expect(create.body.message).toBe(
      `A fired\n${formatMarker({ owner: owner('Errors', 'A'), version: V1 })}`,
    );
    expect(create.body).toMatchObject({
      source: 'tile',
      dashboardId: 'd1',
      tileId: 't1',
      threshold: 10,
    });
  });

  it('same content: unchanged, no write; an older marker says "same content"', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A' }]);
    expect(kinds(planAlerts({ desired, observed: [stored('a', 'Errors', 'A', V2)] }))).toEqual([
      'unchanged A',
    ]);
    expect(kinds(planAlerts({ desired, observed: [stored('a', 'Errors', 'A', V1)] }))).toEqual([
      'unchanged A (same content)',
    ]);
  });

  it('a newer declaration updates in place, naming the changed fields; spec link names read too', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A', threshold: 20 }]);
    const spec = stored('a', 'Errors', 'A', V1, { dashboardId: undefined, dashboard: 'd1' });
    const steps = planAlerts({ desired, observed: [spec] });
    expect(kinds(steps)).toEqual(['updated a: threshold']);
    expect((steps[0] as Extract<AlertStep, { kind: 'update' }>).body.message).toContain(`@${V2}]`);
  });

  it('an older declaration than the alert holds is stale: no write', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A', threshold: 20 }]);
    const steps = planAlerts({
      desired,
      observed: [stored('a', 'Errors', 'A', V3), stored('bb', 'Latency', 'B', V3)],
    });
    expect(kinds(steps)).toEqual([`stale A (newer sync ${V3} already applied)`]);
  });

  it('deletes owned alerts no longer declared, never hand-made ones or other dashboards', () => {
    const other = {
      ...stored('o', 'Errors', 'X', undefined),
      message: withMarker('x', {
        owner: { ...owner('Errors', 'X'), dashboardKey: 'other.yaml' },
        version: V1,
      }),
    };
    const observed = [
      stored('a', 'Errors', 'A', V1),
      stored('bb', 'Latency', 'B', V1),
      stored('h', 'Errors', 'hand', undefined),
      other,
    ];
    const steps = planAlerts({ desired: synced(V2, [{ tile: 'Errors', name: 'A' }]), observed });
    expect(kinds(steps)).toEqual(['deleted bb', 'unchanged A (same content)']);
  });

  it('blocked declarations fail and are not treated as orphans', () => {
    const desired = synced(V2, [{ tile: 'Nope', name: 'B' }]);
    const steps = planAlerts({ desired, observed: [stored('bb', 'Latency', 'B', V1)] });
    // 'B' on Nope is another owner than 'B' on Latency: the Latency one is an orphan.
    expect(kinds(steps)).toEqual([
      expect.stringMatching(/^failed B \(alert "B" is declared on tile "Nope"/),
      'deleted bb',
    ]);
    const declaredTwice = synced(V2, [
      { tile: 'Errors', name: 'A' },
      { tile: 'Errors', name: 'A' },
    ]);
    const twice = planAlerts({
      desired: declaredTwice,
      observed: [stored('a', 'Errors', 'A', V1)],
    });
    expect(kinds(twice)).toEqual([
      expect.stringMatching(/^failed A \(.*declared twice/),
      'unchanged A (same content)',
    ]);
  });

  it('copies of one owner: the oldest kept with the newest content, the others deleted', () => {
    const desired = synced(V1, [{ tile: 'Errors', name: 'A' }]);
    const older = stored('a', 'Errors', 'A', V1); // createdAt :01
    const newer = stored('bb', 'Errors', 'A', V2, { threshold: 30 }); // createdAt :02
    // After a create (only): our copy and a racer's newer one.
    const steps = planAlerts({
      desired,
      observed: [newer, older],
      only: new Set([desired.alerts[0].id]),
    });
    expect(kinds(steps)).toEqual([
      'updated a: threshold (from newer copy bb)',
      'duplicate-removed bb',
    ]);
    expect((steps[0] as Extract<AlertStep, { kind: 'update' }>).body.message).toContain(`@${V2}]`);
    // Same createdAt: the smaller id is kept, whatever the list order.
    const tieA = stored('x2', 'Errors', 'A', V1);
    const tieB = stored('x1', 'Errors', 'A', V1);
    expect(kinds(planAlerts({ desired, observed: [tieA, tieB] }))).toEqual([
      'unchanged A',
      'duplicate-removed x2',
    ]);
    expect(kinds(planAlerts({ desired, observed: [tieB, tieA] }))).toEqual([
      'unchanged A',
      'duplicate-removed x2',
    ]);
  });

  it('a marker edited away: the alert with the same tile and name is re-adopted, not duplicated', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A' }]);
    const edited = stored('a', 'Errors', 'A', undefined, { message: 'someone rewrote this' });
    const steps = planAlerts({
      desired,
      observed: [edited, stored('h', 'Errors', 'hand', undefined)],
    });
    expect(kinds(steps)).toEqual(['adopted a: marker restored; message']);
    expect((steps[0] as Extract<AlertStep, { kind: 'update' }>).body.message).toBe(
      `A fired\n${formatMarker({ owner: owner('Errors', 'A'), version: V2 })}`,
    );
    // Another tile or another name is someone else's alert: created, not adopted.
    const elsewhere = stored('a', 'Latency', 'A', undefined);
    expect(kinds(planAlerts({ desired, observed: [elsewhere] }))).toEqual(['create A']);
    // Of two candidates the older is adopted, once.
    const two = [stored('zz', 'Errors', 'A', undefined), stored('y', 'Errors', 'A', undefined)];
    expect(kinds(planAlerts({ desired, observed: two }))).toEqual(['adopted y: marker restored']);
  });

  it('only: settles the named owners without unchanged outcomes or orphan deletes', () => {
    const desired = synced(V2, [
      { tile: 'Errors', name: 'A' },
      { tile: 'Latency', name: 'B' },
    ]);
    const observed = [
      stored('a', 'Errors', 'A', V2),
      stored('dd', 'Errors', 'gone', V1),
      stored('x1', 'Errors', 'A', V2),
    ];
    const steps = planAlerts({
      desired,
      observed,
      only: new Set([desired.alerts[0].id, desired.alerts[1].id]),
    });
    expect(kinds(steps)).toEqual(['duplicate-removed x1', 'create B']);
  });

  it('dedupeOnly: keeps the oldest copy with the newest copy content, ignoring the (stale) event', () => {
    const desired = synced(V1, [{ tile: 'Errors', name: 'A', threshold: 99 }]);
    const older = stored('a', 'Errors', 'A', V1);
    const newer = stored('bb', 'Errors', 'A', V3, { threshold: 30 });
    expect(kinds(planAlerts({ desired, observed: [older, newer], dedupeOnly: true }))).toEqual([
      'updated a: threshold (from newer copy bb)',
      'duplicate-removed bb',
    ]);
    expect(kinds(planAlerts({ desired, observed: [older], dedupeOnly: true }))).toEqual([]);
    const same = stored('bb', 'Errors', 'A', V3);
    expect(kinds(planAlerts({ desired, observed: [older, same], dedupeOnly: true }))).toEqual([
      'duplicate-removed bb',
    ]);
  });

  describe('dedupeOnly with the newest declaration (a stale redelivery)', () => {
    /** The newest declaration as the version store keeps it. */
    const newest = (version: string, ...alerts: [string, string][]) => ({
      version,
      owners: new Set(
        compactDeclaration(
          'digest',
          alerts.map(([tile, name]) => ownerId(owner(tile, name))),
        )!.owners,
      ),
    });

    it('deletes an alert the newest declaration lacks, written by an older event (a late create)', () => {
      const desired = synced(V1, [
        { tile: 'Errors', name: 'A' },
        { tile: 'Latency', name: 'B' },
      ]);
      const a = stored('a', 'Errors', 'A', V1); // unchanged since V1: older marker, still declared
      const late = stored('bb', 'Latency', 'B', V1);
      const hand = stored('ccc', 'Latency', 'B', undefined); // hand-made: never ours
      const steps = planAlerts({
        desired,
        observed: [a, late, hand],
        dedupeOnly: true,
        newest: newest(V2, ['Errors', 'A']),
      });
      expect(kinds(steps)).toEqual(['deleted bb']);
      // Without the newest declaration only copies go (the bug of issue 16 §4).
      expect(kinds(planAlerts({ desired, observed: [a, late, hand], dedupeOnly: true }))).toEqual(
        [],
      );
    });

    it('leaves alerts written by an event newer than the stored declaration, and other dashboards', () => {
      const desired = synced(V1, [{ tile: 'Latency', name: 'B' }]);
      const fromV3 = stored('bb', 'Latency', 'B', V3);
      const other = {
        ...stored('ccc', 'Latency', 'B', undefined),
        message: withMarker('x', {
          owner: { ...owner('Latency', 'B'), dashboardKey: 'dashboards/other.yaml' },
          version: V1,
        }),
      };
      expect(
        kinds(
          planAlerts({
            desired,
            observed: [fromV3, other],
            dedupeOnly: true,
            newest: newest(V2),
          }),
        ),
      ).toEqual([]);
    });

    it('deletes every copy of an undeclared owner once (no duplicate removal first)', () => {
      const desired = synced(V1, [{ tile: 'Latency', name: 'B' }]);
      const copies = [stored('b', 'Latency', 'B', V1), stored('bb', 'Latency', 'B', V1)];
      expect(
        kinds(planAlerts({ desired, observed: copies, dedupeOnly: true, newest: newest(V2) })),
      ).toEqual(['deleted b', 'deleted bb']);
    });
  });
});
