/**
 * The alert planner's guards pinned by the writes it plans and the outcomes a person reads
 * (`provision-alerts` results): which alert is kept, deleted, adopted or created, with which
 * name and detail. Complements plan.test.ts; pure planAlerts calls.
 */
import { describe, expect, it } from 'vitest';
import {
  compactDeclaration,
  ownerId,
  planAlerts,
  withMarker,
  type AlertOwner,
  type AlertStep,
  type DesiredSet,
} from '../../../lib/alerts';
import type { Alert, CreateAlertBody } from '../../../lib/schemas';
import { KEY, synced, V1, V2, V3 } from './plan-fixtures';

const dashOwner = (tileName: string, alertName: string, dashboardKey = KEY): AlertOwner => ({
  kind: 'dashboard',
  dashboardKey,
  tileName,
  alertName,
});

/** An alert as the service holds it; `createdAt` orders copies (oldest is kept). */
function stored(
  id: string,
  owner: AlertOwner | undefined,
  version: string,
  extra: Partial<Alert> = {},
): Alert {
  const name = owner?.kind === 'dashboard' ? owner.alertName : 'A';
  const tileName = owner?.kind === 'dashboard' ? owner.tileName : 'Errors';
  return {
    id,
    name,
    message: owner ? withMarker(`${name} fired`, { owner, version }) : `${name} fired`,
    threshold: 10,
    interval: '5m',
    thresholdType: 'above',
    source: 'tile',
    channel: { type: 'webhook', webhookId: 'w1' },
    dashboardId: 'd1',
    tileId: tileName === 'Errors' ? 't1' : 't2',
    createdAt: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** A request event's desired set (no dashboard key). */
function requested(version: string, key: string, body: Partial<CreateAlertBody> = {}): DesiredSet {
  const owner: AlertOwner = { kind: 'request', key };
  return {
    version,
    alerts: [
      {
        owner,
        id: ownerId(owner),
        body: {
          name: 'A',
          message: 'A fired',
          threshold: 10,
          interval: '5m',
          thresholdType: 'above',
          source: 'tile',
          channel: { type: 'webhook', webhookId: 'w1' },
          dashboardId: 'd1',
          tileId: 't1',
          ...body,
        },
      },
    ],
    blocked: [],
  };
}

const newest = (version: string, ...owners: AlertOwner[]) => ({
  version,
  owners: new Set(compactDeclaration('digest', owners.map(ownerId))!.owners),
});

const short = (steps: AlertStep[]) =>
  steps.map((s) =>
    s.kind === 'report'
      ? `${s.outcome.action} ${s.outcome.name}${s.outcome.detail ? ` (${s.outcome.detail})` : ''}`
      : s.kind === 'delete'
        ? `${s.action} ${s.alertId} ${s.name}: ${s.detail}`
        : s.kind === 'update'
          ? `${s.action} ${s.alertId}: ${s.detail}`
          : `${s.kind} ${s.desired.body.name}`,
  );

describe('deletes name the alert and say why', () => {
  it('an owned alert no longer declared', () => {
    const desired = synced(V2, []);
    const gone = stored('g', dashOwner('Errors', 'Old'), V1);
    expect(planAlerts({ desired, observed: [gone] })).toEqual([
      {
        kind: 'delete',
        alertId: 'g',
        owner: ownerId(dashOwner('Errors', 'Old')),
        name: 'Old',
        action: 'deleted',
        detail: 'declaration or tile removed',
      },
    ]);
  });

  it('a late create of an older event (stale redelivery with the newest declaration)', () => {
    const desired = synced(V1, [{ tile: 'Latency', name: 'B' }]);
    const late = stored('bb', dashOwner('Latency', 'B'), V1);
    expect(planAlerts({ desired, observed: [late], dedupeOnly: true, newest: newest(V2) })).toEqual(
      [
        {
          kind: 'delete',
          alertId: 'bb',
          owner: ownerId(dashOwner('Latency', 'B')),
          name: 'B',
          action: 'deleted',
          detail: `not declared by the newest event ${V2} (created late by an older one)`,
        },
      ],
    );
  });

  it('late creates go oldest first; one written by the newest event itself counts too', () => {
    const desired = synced(V1, [{ tile: 'Latency', name: 'B' }]);
    const young = stored('b1', dashOwner('Latency', 'B'), V2, {
      createdAt: '2025-01-01T00:00:09.000Z',
    });
    const old = stored('b2', dashOwner('Latency', 'B'), V1);
    const steps = planAlerts({
      desired,
      observed: [young, old],
      dedupeOnly: true,
      newest: newest(V2),
    });
    expect(steps.map((s) => (s.kind === 'delete' ? s.alertId : s.kind))).toEqual(['b2', 'b1']);
  });

  it('a request event with the newest declaration deletes nothing but its copies', () => {
    const desired = requested(V1, 'req-1');
    const owner: AlertOwner = { kind: 'request', key: 'req-1' };
    const mine = stored('r1', owner, V1);
    expect(planAlerts({ desired, observed: [mine], dedupeOnly: true, newest: newest(V2) })).toEqual(
      [],
    );
  });

  it('a duplicate carries its own name (as the service shows it)', () => {
    const desired = synced(V1, [{ tile: 'Errors', name: 'A' }]);
    const kept = stored('a', dashOwner('Errors', 'A'), V1);
    const copy = stored('b', dashOwner('Errors', 'A'), V1, {
      name: 'A (copy)',
      createdAt: '2025-01-01T00:00:05.000Z',
    });
    expect(short(planAlerts({ desired, observed: [copy, kept] }))).toEqual([
      'unchanged A',
      'duplicate-removed b A (copy): duplicate of a',
    ]);
  });
});

describe('which copy is kept', () => {
  it('the oldest by createdAt, whatever its id; one without createdAt counts as oldest', () => {
    const desired = synced(V1, [{ tile: 'Errors', name: 'A' }]);
    const older = stored('zz', dashOwner('Errors', 'A'), V1);
    const younger = stored('aa', dashOwner('Errors', 'A'), V1, {
      createdAt: '2025-01-01T00:00:05.000Z',
    });
    expect(short(planAlerts({ desired, observed: [younger, older] })).at(-1)).toBe(
      'duplicate-removed aa A: duplicate of zz',
    );
    const undated = stored('zz', dashOwner('Errors', 'A'), V1, { createdAt: undefined });
    const dated = stored('aa', dashOwner('Errors', 'A'), V1);
    expect(short(planAlerts({ desired, observed: [dated, undated] })).at(-1)).toBe(
      'duplicate-removed aa A: duplicate of zz',
    );
  });

  it('same createdAt: the smallest id, the others in id order, whatever the list order', () => {
    const desired = synced(V1, [{ tile: 'Errors', name: 'A' }]);
    const [x1, x2, x3] = ['x1', 'x2', 'x3'].map((id) => stored(id, dashOwner('Errors', 'A'), V1));
    for (const observed of [
      [x3, x1, x2],
      [x2, x3, x1],
      [x1, x3, x2],
    ]) {
      expect(short(planAlerts({ desired, observed }))).toEqual([
        'unchanged A',
        'duplicate-removed x2 A: duplicate of x1',
        'duplicate-removed x3 A: duplicate of x1',
      ]);
    }
  });

  it('dedupe: the kept copy takes the content of the copy with the newest marker', () => {
    const desired = synced(V1, [{ tile: 'Errors', name: 'A' }]);
    const winner = stored('a', dashOwner('Errors', 'A'), V1);
    const v3 = stored('b', dashOwner('Errors', 'A'), V3, {
      threshold: 30,
      interval: '1h',
      createdAt: '2025-01-01T00:00:05.000Z',
    });
    const v2 = stored('c', dashOwner('Errors', 'A'), V2, {
      threshold: 20,
      createdAt: '2025-01-01T00:00:06.000Z',
    });
    const v3b = stored('d', dashOwner('Errors', 'A'), V3, {
      threshold: 40,
      createdAt: '2025-01-01T00:00:07.000Z',
    });
    expect(
      short(planAlerts({ desired, observed: [winner, v3, v2, v3b], dedupeOnly: true })),
    ).toEqual([
      'updated a: threshold, interval (from newer copy b)',
      'duplicate-removed b A: duplicate of a',
      'duplicate-removed c A: duplicate of a',
      'duplicate-removed d A: duplicate of a',
    ]);
  });
});

describe('settling one owner', () => {
  it('a copy with the same version as the event does not override the event', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A', threshold: 10 }]);
    const same = stored('a', dashOwner('Errors', 'A'), V2, { threshold: 30 });
    expect(short(planAlerts({ desired, observed: [same] }))).toEqual(['updated a: threshold']);
  });

  it('a newer copy that cannot be read back completely is ignored', () => {
    const desired = synced(V1, [{ tile: 'Errors', name: 'A' }]);
    const a = stored('a', dashOwner('Errors', 'A'), V1);
    const broken = stored('b', dashOwner('Errors', 'A'), V3, {
      interval: undefined,
      createdAt: '2025-01-01T00:00:05.000Z',
    });
    expect(
      short(planAlerts({ desired, observed: [a, broken], only: new Set([desired.alerts[0].id]) })),
    ).toEqual(['duplicate-removed b A: duplicate of a']);
  });

  it('several changed fields are all named', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A', threshold: 11, interval: '1h' }]);
    const a = stored('a', dashOwner('Errors', 'A'), V1);
    const steps = planAlerts({ desired, observed: [a] });
    expect(short(steps)).toEqual(['updated a: threshold, interval']);
  });

  it('a request whose alert holds a newer declaration is stale, naming it; same content is unchanged', () => {
    const owner: AlertOwner = { kind: 'request', key: 'req-1' };
    const newer = stored('r1', owner, V2, { threshold: 30 });
    expect(planAlerts({ desired: requested(V1, 'req-1'), observed: [newer] })).toEqual([
      {
        kind: 'report',
        outcome: {
          action: 'stale',
          owner: ownerId(owner),
          name: 'A',
          alertId: 'r1',
          detail: `newer declaration ${V2} already applied`,
        },
      },
    ]);
    const same = stored('r1', owner, V2);
    expect(short(planAlerts({ desired: requested(V1, 'req-1'), observed: [same] }))).toEqual([
      'unchanged A',
    ]);
  });

  it('only: owners outside the set are not touched', () => {
    const desired = synced(V2, [
      { tile: 'Errors', name: 'A' },
      { tile: 'Latency', name: 'B' },
    ]);
    const steps = planAlerts({ desired, observed: [], only: new Set([desired.alerts[1].id]) });
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ kind: 'create', desired: { id: desired.alerts[1].id } });
  });

  it('a blocked declaration keeps its existing alert (failed, never deleted as an orphan)', () => {
    const event = synced(V2, [{ tile: 'Nope', name: 'B' }]);
    const existing = stored('bb', dashOwner('Nope', 'B'), V1);
    const steps = planAlerts({ desired: event, observed: [existing] });
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ kind: 'report', outcome: { action: 'failed', name: 'B' } });
  });

  it('stale: judged against the newest marker of the dashboard, wherever it is in the list', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A' }]);
    const observed = [
      stored('a', dashOwner('Errors', 'A'), V1),
      stored('b', dashOwner('Latency', 'B'), V3),
      stored('c', dashOwner('Latency', 'C'), V1),
    ];
    expect(short(planAlerts({ desired, observed }))).toEqual([
      `stale A (newer sync ${V3} already applied)`,
    ]);
  });
});

describe('re-adopting an alert whose marker was edited away', () => {
  it('names every field that differs besides the marker', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A' }]);
    const edited = stored('a', undefined, V1, { message: 'rewritten', threshold: 3 });
    const steps = planAlerts({ desired, observed: [edited] });
    expect(short(steps)).toEqual(['adopted a: marker restored; message, threshold']);
  });

  it('never an alert of another owner, another dashboard, another name or another source', () => {
    const desired = synced(V2, [{ tile: 'Errors', name: 'A' }]);
    const cases: Alert[] = [
      stored('o', dashOwner('Errors', 'A', 'dashboards/other.yaml'), V1),
      stored('d', undefined, V1, { dashboardId: 'd9' }),
      stored('n', undefined, V1, { name: 'A2' }),
      stored('s', undefined, V1, { source: 'saved_search', savedSearchId: 's1' }),
    ];
    for (const candidate of cases) {
      const steps = planAlerts({ desired, observed: [candidate] });
      expect(short(steps), candidate.id).toEqual(['create A']);
      expect(steps[0].kind).toBe('create');
    }
  });

  it('a saved-search alert is adopted by its saved search, not by a dashboard link', () => {
    const desired = requested(V2, 'req-1', {
      source: 'saved_search',
      savedSearchId: 's1',
      dashboardId: undefined,
      tileId: undefined,
    });
    const same = stored('s', undefined, V1, {
      source: 'saved_search',
      savedSearchId: 's1',
      dashboardId: undefined,
      tileId: undefined,
    });
    expect(short(planAlerts({ desired, observed: [same] }))).toEqual([
      'adopted s: marker restored',
    ]);
    const other = { ...same, savedSearchId: 's2' } as Alert;
    expect(short(planAlerts({ desired, observed: [other] }))).toEqual(['create A']);
  });
});
