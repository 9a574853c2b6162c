/**
 * The dashboards planner's guards pinned by what `dashboards plan` shows a person and what
 * apply would write: which dashboard is created, updated, deleted or left alone, the notes
 * about what is not touched, and the alerts a removal kills. Pure computePlan calls (plus the
 * request count of planDashboards), so these stay fast.
 */
import { describe, expect, it } from 'vitest';
import { alertShape } from '../../../lib/alerts/compare';
import { withMarker as alertMarker } from '../../../lib/alerts/marker';
import { ALERTS_TAG, identityTag, markerTags, withMarker } from '../../../lib/dashboards/ownership';
import {
  computePlan,
  matchTiles,
  planDashboards,
  tileIdentity,
  writeBody,
} from '../../../lib/dashboards/plan';
import type { DesiredDashboard, DesiredTile } from '../../../lib/dashboards/types';
import type { FileAlert } from '../../../lib/dashboards/file-schema';
import type { Alert, Dashboard, Tile } from '../../../lib/schemas';

const tile = (name: string, extra: Partial<DesiredTile> = {}): DesiredTile => ({
  name,
  x: 0,
  y: 0,
  w: 6,
  h: 4,
  asRatio: false,
  series: [],
  config: { displayType: 'markdown', markdown: name },
  alerts: [],
  ...extra,
});

const want = (key: string, name: string, tiles: DesiredTile[] = [], tags: string[] = []) =>
  ({ key, sourceFile: `${key}.yaml`, name, tags, tiles }) as DesiredDashboard;

/** The service's form of a desired tile, with an id. */
const onService = (t: DesiredTile, id: string): Tile => ({
  id,
  name: t.name,
  x: t.x,
  y: t.y,
  w: t.w,
  h: t.h,
  config: { displayType: 'markdown', markdown: t.config?.markdown ?? t.name },
});

const dash = (id: string, name: string, tags: string[], tiles: Tile[] = []): Dashboard => ({
  id,
  name,
  tags,
  tiles,
});

const alert = (fields: Partial<Alert> & { id: string }): Alert => ({
  threshold: 1,
  thresholdType: 'above',
  interval: '5m',
  source: 'tile',
  channel: { type: 'webhook', webhookId: 'w1' },
  ...fields,
});

const marked = (
  key: string,
  tileName: string,
  alertName: string,
  fields: Partial<Alert> & { id: string },
) =>
  alert({
    name: alertName,
    ...fields,
    message: alertMarker(undefined, {
      owner: { kind: 'dashboard', dashboardKey: key, tileName, alertName },
      version: '0001',
    }),
  });

const fileAlert = (name: string, extra: Partial<FileAlert> = {}): FileAlert => ({
  name,
  threshold: 1,
  thresholdType: 'above',
  interval: '5m',
  channel: { type: 'webhook', webhookId: 'w1' },
  ...extra,
});

describe('notes and choices of computePlan', () => {
  it('a --target that matches nothing is noted; one matching an owned dashboard is not', () => {
    const owned = dash('o1', 'Old', markerTags('old'));
    const plan = computePlan([want('a', 'A')], [owned], { targets: ['nope', 'old'] });
    expect(plan.notes).toEqual([
      '--target "nope" matches no dashboard file and no owned dashboard',
      'owned dashboard "Old" (o1) has no file; --prune deletes it',
    ]);
    expect(plan.changes).toEqual([]);
    // An empty target list means every dashboard.
    expect(computePlan([want('a', 'A')], [], { targets: [] }).changes).toHaveLength(1);
  });

  it('prune over files that declare no dashboard is refused unless deleting them all is allowed', () => {
    const owned = [dash('o1', 'A', markerTags('a')), dash('o2', 'B', markerTags('b'))];
    expect(() => computePlan([], owned, { prune: true })).toThrow(
      'the files declare no dashboard, so --prune would delete all 2 dashboard(s) of owner "default"; refused',
    );
    // Without prune it is only notes; with files it is the usual orphan delete.
    expect(computePlan([], owned).changes).toEqual([]);
    expect(computePlan([want('a', 'A')], owned, { prune: true }).counts.delete).toBe(1);
    expect(
      computePlan([], owned, { prune: true, allowDeleteAll: true }).changes.map((c) => c.action),
    ).toEqual(['delete', 'delete']);
  });

  it('owned duplicates of one key: the lowest id is kept; even prune never deletes the others while the file exists', () => {
    const d2 = dash('d2', 'A copy', markerTags('a'));
    const d1 = dash('d1', 'A', markerTags('a'));
    const note =
      'dashboard "A copy" (d2) carries the key "a" too (kept: d1); not deleted while its file exists: delete it by hand if it is a copy';
    for (const prune of [false, true]) {
      const plan = computePlan([want('a', 'A')], [d2, d1], { prune });
      expect(plan.changes.map((c) => [c.action, c.id])).toEqual([['unchanged', 'd1']]);
      expect(plan.notes).toEqual([note]);
    }
    // Its file gone, prune deletes both.
    const orphaned = computePlan([], [d2, d1], { prune: true, allowDeleteAll: true });
    expect(orphaned.changes.map((c) => [c.action, c.id])).toEqual([
      ['delete', 'd1'],
      ['delete', 'd2'],
    ]);
  });

  it("another owner's dashboard with the key is a conflict naming the first of them", () => {
    const f2 = dash('f2', 'A2', markerTags('a', 'team-b'));
    const f1 = dash('f1', 'A1', markerTags('a', 'team-c'));
    const plan = computePlan([want('a', 'A')], [f2, f1], { owner: 'team-a' });
    expect(plan.changes).toEqual([
      {
        action: 'conflict',
        key: 'a',
        name: 'A',
        sourceFile: 'a.yaml',
        id: 'f1',
        fields: {},
        tiles: [],
        alerts: [],
        alertsDeleted: [],
        reason: 'key "a" is owned by "team-c" (dashboard "A1", f1); not taken over',
      },
    ]);
    expect(plan.counts.conflict).toBe(1);
    expect(plan.pending).toBe(false);
    expect(plan.owner).toBe('team-a');
  });

  it('our own dashboard wins over a foreign one with the same key', () => {
    const plan = computePlan(
      [want('a', 'A')],
      [dash('f1', 'A', markerTags('a', 'team-b')), dash('m1', 'A', markerTags('a', 'team-a'))],
      { owner: 'team-a' },
    );
    expect(plan.changes.map((c) => [c.action, c.id])).toEqual([['unchanged', 'm1']]);
  });

  it('hand-made dashboards of the same name: left alone with a note unless --adopt', () => {
    const h1 = dash('h1', 'A', ['x']);
    const h2 = dash('h2', 'A', []);
    const left = computePlan([want('a', 'A')], [h1, h2]);
    expect(left.changes.map((c) => c.action)).toEqual(['create']);
    expect(left.notes).toEqual([
      'hand-made dashboard "A" (h1, h2) is left alone; --adopt would take it over',
    ]);
    const two = computePlan([want('a', 'A')], [h1, h2], { adopt: true });
    expect(two.changes.map((c) => c.action)).toEqual(['create']);
    expect(two.notes).toEqual([
      '2 hand-made dashboards are named "A": none adopted, a new one is created',
    ]);
    const one = computePlan([want('a', 'A')], [h1], { adopt: true });
    expect(one.changes[0]).toMatchObject({
      action: 'update',
      id: 'h1',
      adopted: true,
      fields: { tags: { added: [], removed: ['x'] }, marker: true },
    });
    expect(one.notes).toEqual([]);
    // A dashboard of another name is no candidate.
    expect(computePlan([want('a', 'A')], [dash('h3', 'B', [])]).notes).toEqual([]);
  });

  it('a hand-made dashboard is adopted by one file only', () => {
    const plan = computePlan([want('b', 'A'), want('a', 'A')], [dash('h1', 'A', [])], {
      adopt: true,
    });
    expect(plan.changes.map((c) => [c.action, c.key, c.id])).toEqual([
      ['update', 'a', 'h1'],
      ['create', 'b', undefined],
    ]);
    expect(plan.changes[0].adopted).toBe(true);
    expect('adopted' in plan.changes[1]).toBe(false);
  });

  it('an orphan: a note without --prune; with it a delete naming the alerts it kills', () => {
    const t1 = onService(tile('load'), 't1');
    const orphan = dash('o1', 'Old', markerTags('old'), [t1]);
    const alerts = [
      alert({ id: 'a1', name: 'hot', dashboardId: 'o1', tileId: 't1' }),
      alert({ id: 'a2', dashboardId: 'o1', tileId: 'gone' }),
      alert({ id: 'a3', name: 'other', dashboardId: 'x9', tileId: 't1' }),
    ];
    expect(computePlan([], [orphan], {}, alerts).notes).toEqual([
      'owned dashboard "Old" (o1) has no file; --prune deletes it',
    ]);
    const plan = computePlan([], [orphan], { prune: true, allowDeleteAll: true }, alerts);
    expect(plan.changes[0]).toMatchObject({
      action: 'delete',
      name: 'Old',
      id: 'o1',
      reason: 'no dashboard file declares it',
      alertsDeleted: [{ id: 'a1', name: 'hot', tileName: 'load' }, { id: 'a2' }],
      seenAlerts: [alerts[0], alerts[1]],
    });
    expect(plan.counts).toEqual({ create: 0, update: 0, delete: 1, unchanged: 0, conflict: 0 });
    expect(plan.pending).toBe(true);
    expect(plan.alertsRead).toBe(true);
    // Without the alert list: nothing named, nothing seen.
    const blind = computePlan([], [orphan], { prune: true, allowDeleteAll: true });
    expect(blind.changes[0].alertsDeleted).toEqual([]);
    expect('seenAlerts' in blind.changes[0]).toBe(false);
    expect(blind.alertsRead).toBe(false);
  });

  it('a hand-made dashboard is never pruned', () => {
    expect(
      computePlan([], [dash('h1', 'A', ['cloudops'])], { prune: true, allowDeleteAll: true })
        .changes,
    ).toEqual([]);
  });
});

describe('what an update shows', () => {
  it('tags: only user tags are listed; a missing alerts tag alone is no change', () => {
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] })], ['keep', 'new']);
    const t = onService(w.tiles[0], 't1');
    const same = dash('d1', 'A', [...withMarker(['keep', 'new'], 'a')], [t]);
    const hot = marked('a', 't', 'hot', { id: 'x1', dashboardId: 'd1', tileId: 't1' });
    const plan = computePlan([w], [same], {}, [hot]);
    expect(plan.changes[0].action).toBe('unchanged');
    expect(plan.pending).toBe(false);
    const edited = dash('d1', 'A', [...withMarker(['keep', 'old'], 'a')], [t]);
    expect(computePlan([w], [edited], {}, [hot]).changes[0].fields).toEqual({
      tags: { added: ['new'], removed: ['old'] },
    });
  });

  it('a dashboard of the default owner written before owners stays unchanged; a new owner tag is a marker change', () => {
    const w = want('a', 'A');
    expect(computePlan([w], [dash('d1', 'A', markerTags('a'))]).changes[0].action).toBe(
      'unchanged',
    );
    const plan = computePlan([w], [dash('d1', 'A', [...markerTags('a'), 'cloudops@x'])], {
      owner: 'x',
    });
    expect(plan.changes[0].action).toBe('unchanged');
    const moved = computePlan([w], [dash('d1', 'A', markerTags('a'))], { owner: 'x' });
    expect(moved.changes[0].action).toBe('conflict');
  });

  it('renamed dashboard: name from -> to', () => {
    const plan = computePlan([want('a', 'New')], [dash('d1', 'Old', markerTags('a'))]);
    expect(plan.changes[0]).toMatchObject({
      action: 'update',
      fields: { name: { from: 'Old', to: 'New' } },
    });
  });

  it('a tile renamed by key keeps its id; a removed tile with alerts warns when a tile is added', () => {
    const keyed = tile('load v2', { key: 'load' });
    const w = want('a', 'A', [keyed, tile('fresh')]);
    const tLoad = onService(tile('load'), 't1');
    const tOld = onService(tile('old'), 't2');
    const d = dash('d1', 'A', markerTags('a'), [tLoad, tOld]);
    const alerts = [
      marked('a', 'load', 'hot', { id: 'x1', dashboardId: 'd1', tileId: 't1' }),
      alert({ id: 'x2', name: 'cold', dashboardId: 'd1', tileId: 't2' }),
    ];
    const plan = computePlan([w], [d], {}, alerts);
    const c = plan.changes[0];
    expect(c.tileIds).toEqual(['t1', undefined]);
    expect(c.tiles).toEqual([
      {
        kind: 'renamed',
        name: 'load v2',
        from: 'load',
        id: 't1',
        fields: ['name', 'series'],
        changes: [
          { path: 'name', from: 'load', to: 'load v2' },
          { path: 'series.markdown', from: 'load', to: 'load v2' },
        ],
      },
      { kind: 'added', name: 'fresh' },
      {
        kind: 'removed',
        name: 'old',
        id: 't2',
        alerts: [{ id: 'x2', name: 'cold', tileName: 'old' }],
        warning:
          'if "old" was renamed (to "fresh"), its 1 alert(s) are deleted all the same: give the tile a `key` to keep them',
      },
    ]);
    expect(c.alertsDeleted).toEqual([{ id: 'x2', name: 'cold', tileName: 'old' }]);
    expect(c.seenAlerts).toEqual(alerts);
  });

  it('no warning on a removal without alerts, nor without an added tile', () => {
    const d = dash('d1', 'A', markerTags('a'), [
      onService(tile('keep'), 't1'),
      onService(tile('old'), 't2'),
    ]);
    const cold = alert({ id: 'x2', dashboardId: 'd1', tileId: 't2' });
    const removedOnly = computePlan([want('a', 'A', [tile('keep')])], [d], {}, [cold]);
    expect(removedOnly.changes[0].tiles).toEqual([
      { kind: 'removed', name: 'old', id: 't2', alerts: [{ id: 'x2', tileName: 'old' }] },
    ]);
    const noAlerts = computePlan([want('a', 'A', [tile('keep'), tile('new')])], [d], {}, []);
    expect(noAlerts.changes[0].tiles.at(-1)).toEqual({
      kind: 'removed',
      name: 'old',
      id: 't2',
      alerts: [],
    });
  });

  it('a tile that only moved is "moved"; position plus content is "changed"', () => {
    const d = dash('d1', 'A', markerTags('a'), [onService(tile('t'), 't1')]);
    const moved = computePlan([want('a', 'A', [tile('t', { x: 6, y: 2 })])], [d]);
    expect(moved.changes[0].tiles).toEqual([
      {
        kind: 'moved',
        name: 't',
        id: 't1',
        fields: ['x', 'y'],
        changes: [
          { path: 'x', from: 0, to: 6 },
          { path: 'y', from: 0, to: 2 },
        ],
      },
    ]);
    const changed = computePlan(
      [want('a', 'A', [tile('t', { x: 6, config: { displayType: 'markdown', markdown: 'z' } })])],
      [d],
    );
    expect(changed.changes[0].tiles[0]).toMatchObject({ kind: 'changed', fields: ['x', 'series'] });
  });
});

describe('matchTiles', () => {
  const d = dash('d1', 'A', markerTags('a'), [
    onService(tile('x'), 't1'),
    onService(tile('x'), 't2'),
    onService(tile('y'), 't3'),
  ]);

  it('by name, the first tile of a name wins and an id is used once', () => {
    expect(matchTiles(want('a', 'A', [tile('x'), tile('x'), tile('y'), tile('z')]), d)).toEqual([
      't1',
      undefined,
      't3',
      undefined,
    ]);
  });

  it('by key through the alert marked with it, only for this dashboard key and existing tiles', () => {
    const alerts = [
      marked('other', 'k', 'a', { id: 'm0', tileId: 't3' }),
      marked('a', 'k', 'a', { id: 'm1', tileId: 'gone' }),
      marked('a', 'k', 'a', { id: 'm2', tileId: 't2' }),
      marked('a', 'k', 'b', { id: 'm3', tileId: 't3' }),
      alert({ id: 'h1', tileId: 't3' }),
    ];
    // The keyed tile takes t2 (its alert), so the name match of the other "x" takes t1.
    expect(
      matchTiles(want('a', 'A', [tile('x'), tile('renamed', { key: 'k' })]), d, alerts),
    ).toEqual(['t1', 't2']);
    // Two tiles claiming one key: the first gets the id, the second falls back to its name.
    expect(
      matchTiles(want('a', 'A', [tile('q', { key: 'k' }), tile('y', { key: 'k' })]), d, alerts),
    ).toEqual(['t2', 't3']);
    // A name match never takes an id a key already took.
    expect(matchTiles(want('a', 'A', [tile('x', { key: 'k' }), tile('x')]), d, alerts)).toEqual([
      't2',
      't1',
    ]);
  });
});

describe('tile alerts in the plan', () => {
  const t = onService(tile('t'), 't1');
  const d = (tags = markerTags('a')) => dash('d1', 'A', tags, [t]);

  it('created on a new dashboard even before the alert list is read', () => {
    const w = want('a', 'A', [tile('t', { key: 'tk', alerts: [fileAlert('hot')] })]);
    const plan = computePlan([w], []);
    const [create] = plan.changes[0].alerts;
    expect(plan.changes[0].alerts).toHaveLength(1);
    expect(create).toMatchObject({
      action: 'create',
      name: 'hot',
      tile: 't',
      tileIdentity: 'tk',
      want: w.tiles[0].alerts[0],
    });
    expect(create.changes).toContainEqual({ path: 'threshold', to: 1 });
    expect(plan.alertCounts).toEqual({ create: 1, update: 0, delete: 0 });
    expect(plan.pending).toBe(true);
    // No declared alerts and no list: nothing planned.
    expect(computePlan([want('a', 'A', [tile('t')])], []).changes[0].alerts).toEqual([]);
  });

  it('an unchanged marked alert plans nothing; a changed one is an update with old -> new', () => {
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] })]);
    const same = marked('a', 't', 'hot', { id: 'x1', dashboardId: 'd1', tileId: 't1' });
    expect(computePlan([w], [d()], {}, [same]).changes[0].alerts).toEqual([]);
    const old = marked('a', 't', 'hot', {
      id: 'x1',
      dashboardId: 'd1',
      tileId: 't1',
      threshold: 5,
    });
    const plan = computePlan([w], [d()], {}, [old]);
    expect(plan.changes[0].alerts).toEqual([
      {
        action: 'update',
        name: 'hot',
        tile: 't',
        tileIdentity: 't',
        id: 'x1',
        changes: [{ path: 'threshold', from: 5, to: 1 }],
        want: w.tiles[0].alerts[0],
      },
    ]);
    expect(plan.alertCounts).toEqual({ create: 0, update: 1, delete: 0 });
    expect(plan.changes[0].action).toBe('unchanged');
    expect(plan.pending).toBe(true);
  });

  it('a marker naming the tile differently is re-marked', () => {
    const w = want('a', 'A', [tile('t', { key: 'k', alerts: [fileAlert('hot')] })]);
    const byName = marked('a', 't', 'hot', { id: 'x1', dashboardId: 'd1', tileId: 't1' });
    const [change] = computePlan([w], [d()], {}, [byName]).changes[0].alerts;
    expect(change).toMatchObject({
      action: 'update',
      id: 'x1',
      changes: [
        {
          path: 'marker',
          from: 'd/a/t/hot',
          to: 'd/a/k/hot',
        },
      ],
    });
  });

  it('declared alerts not on the service are created; marked ones not declared are deleted', () => {
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('new')] })]);
    const stale = marked('a', 't', 'gone', { id: 'x9', dashboardId: 'd1', tileId: 't1' });
    const hand = alert({ id: 'h1', name: 'mine', dashboardId: 'd1', tileId: 't1' });
    const foreign = marked('b', 't', 'gone', {
      id: 'f1',
      dashboardId: 'd1',
      tileId: 't1',
    });
    const plan = computePlan([w], [d()], {}, [stale, hand, foreign]);
    expect(plan.changes[0].alerts.map((a) => [a.action, a.name, a.id, a.tile])).toEqual([
      ['create', 'new', undefined, 't'],
      ['delete', 'gone', 'x9', 't'],
    ]);
    expect(plan.changes[0].alerts[1]).toMatchObject({ tileIdentity: 't', changes: [] });
  });

  it('an adopted dashboard adopts its hand-made alerts by tile and name (they get the marker)', () => {
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] })]);
    const hand = alert({ id: 'h1', name: 'hot', dashboardId: 'd1', tileId: 't1' });
    const other = alert({ id: 'h2', name: 'mine', dashboardId: 'd1', tileId: 't1' });
    const plan = computePlan([w], [dash('d1', 'A', [], [t])], { adopt: true }, [hand, other]);
    expect(plan.changes[0].alerts).toEqual([
      {
        action: 'update',
        name: 'hot',
        tile: 't',
        tileIdentity: 't',
        id: 'h1',
        changes: [],
        want: w.tiles[0].alerts[0],
        adopt: true,
      },
    ]);
    // Not adopting: the hand-made alert is not ours, a marked one is created beside it.
    const mine = computePlan([w], [d()], {}, [hand]).changes[0].alerts;
    expect(mine.map((a) => a.action)).toEqual(['create']);
  });

  it('alerts of a tile being removed are left to the service (no delete planned)', () => {
    const w = want('a', 'A', [tile('other')]);
    const onRemoved = marked('a', 't', 'hot', {
      id: 'x1',
      dashboardId: 'd1',
      tileId: 't1',
    });
    const plan = computePlan([w], [d()], {}, [onRemoved]);
    expect(plan.changes[0].alerts).toEqual([]);
    expect(plan.changes[0].alertsDeleted).toEqual([{ id: 'x1', name: 'hot', tileName: 't' }]);
  });

  it('alertShape compares the declarable fields only, without the marker', () => {
    const a = marked('a', 't', 'hot', {
      id: 'x1',
      thresholdMax: 9,
      channel: { type: 'webhook', webhookId: 'w1', extra: 1 },
    });
    expect(alertShape(a)).toEqual({
      name: 'hot',
      threshold: 1,
      thresholdMax: 9,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhookId: 'w1' },
      message: '',
    });
    expect(alertShape(fileAlert('x', { channel: { type: 'email' } }))).toEqual({
      name: 'x',
      threshold: 1,
      thresholdMax: undefined,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'email' },
      message: '',
    });
  });
});

describe('requests and bodies', () => {
  const backend = (dashboards: Dashboard[]) => {
    const calls: string[] = [];
    return {
      calls,
      listDashboards: () => (calls.push('list'), Promise.resolve(dashboards)),
      listAlerts: () => (calls.push('listAlerts'), Promise.resolve([] as Alert[])),
    };
  };

  it('reads alerts only when a file declares some, an owned dashboard carries the alerts tag, or something is deleted', async () => {
    const plain = backend([dash('d1', 'A', markerTags('a'))]);
    await planDashboards([want('a', 'A')], plain);
    expect(plain.calls).toEqual(['list']);

    const declares = backend([]);
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] })]);
    expect((await planDashboards([w], declares)).alertsRead).toBe(true);
    expect(declares.calls).toEqual(['list', 'listAlerts']);

    const tagged = backend([dash('d1', 'A', [...markerTags('a'), ALERTS_TAG])]);
    await planDashboards([want('a', 'A')], tagged);
    expect(tagged.calls).toEqual(['list', 'listAlerts']);

    const theirs = backend([dash('d1', 'A', [...markerTags('a', 'team-b'), ALERTS_TAG])]);
    await planDashboards([want('a', 'A')], theirs);
    expect(theirs.calls).toEqual(['list']);

    const handTagged = backend([dash('d1', 'A', [ALERTS_TAG])]);
    await planDashboards([want('a', 'A')], handTagged);
    expect(handTagged.calls).toEqual(['list']);

    const pruning = backend([dash('o1', 'Old', markerTags('old'))]);
    await planDashboards([], pruning, { prune: true, allowDeleteAll: true });
    expect(pruning.calls).toEqual(['list', 'listAlerts']);

    const removing = backend([
      dash('d1', 'A', markerTags('a'), [onService(tile('t'), 't1'), onService(tile('u'), 't2')]),
    ]);
    await planDashboards([want('a', 'A', [tile('t')])], removing);
    expect(removing.calls).toEqual(['list', 'listAlerts']);
  });

  it('writeBody: user tags with the marker (and the alerts tag when alerts are declared), tile ids kept', () => {
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] }), tile('u')], ['z']);
    const body = writeBody(w, ['t1'], 'team-a');
    expect(body.name).toBe('A');
    expect(body.tags).toEqual([...withMarker(['z'], 'a', 'team-a', true)]);
    expect(body.tags).toContain(ALERTS_TAG);
    expect(body.tags).toContain(identityTag('a'));
    expect((body.tiles ?? []).map((x) => (x as { id?: string }).id)).toEqual(['t1', undefined]);
    expect(writeBody(want('a', 'A')).tags).toEqual(markerTags('a').sort());
  });

  it('tileIdentity: the key, else the name', () => {
    expect(tileIdentity({ key: 'k', name: 'n' })).toBe('k');
    expect(tileIdentity({ name: 'n' })).toBe('n');
  });
});

describe('more guards of the planner', () => {
  const t1 = onService(tile('t'), 't1');

  it('alerts are read when ANY file declares some, ANY owned dashboard is tagged, ANY change deletes', async () => {
    const run = async (desired: DesiredDashboard[], actual: Dashboard[], prune = false) => {
      const calls: string[] = [];
      await planDashboards(
        desired,
        {
          listDashboards: () => (calls.push('list'), Promise.resolve(actual)),
          listAlerts: () => (calls.push('listAlerts'), Promise.resolve([] as Alert[])),
        },
        { prune },
      );
      return calls;
    };
    const declares = want('b', 'B', [tile('t', { alerts: [fileAlert('hot')] })]);
    expect(await run([want('a', 'A'), declares], [])).toEqual(['list', 'listAlerts']);
    expect(
      await run(
        [want('a', 'A'), want('b', 'B')],
        [dash('d1', 'A', markerTags('a')), dash('d2', 'B', [...markerTags('b'), ALERTS_TAG])],
      ),
    ).toEqual(['list', 'listAlerts']);
    expect(
      await run(
        [want('a', 'A')],
        [dash('d1', 'A', markerTags('a')), dash('o1', 'O', markerTags('o'))],
        true,
      ),
    ).toEqual(['list', 'listAlerts']);
  });

  it('a --target that names a file is no "matches nothing" note', () => {
    expect(computePlan([want('a', 'A')], [], { targets: ['a'] }).notes).toEqual([]);
  });

  it('pending counts every kind of write (create and update together, alert updates and deletes together)', () => {
    const plan = computePlan(
      [want('a', 'A'), want('b', 'New name')],
      [dash('d1', 'B', markerTags('b'))],
    );
    expect(plan.counts).toEqual({ create: 1, update: 1, delete: 0, unchanged: 0, conflict: 0 });
    expect(plan.pending).toBe(true);
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] })]);
    const alerts = [
      marked('a', 't', 'hot', { id: 'x1', dashboardId: 'd1', tileId: 't1', threshold: 3 }),
      marked('a', 't', 'gone', { id: 'x2', dashboardId: 'd1', tileId: 't1' }),
    ];
    const onlyAlerts = computePlan(
      [w],
      [dash('d1', 'A', withMarker([], 'a', 'default', true), [t1])],
      {},
      alerts,
    );
    expect(onlyAlerts.alertCounts).toEqual({ create: 0, update: 1, delete: 1 });
    expect(onlyAlerts.counts.unchanged).toBe(1);
    expect(onlyAlerts.pending).toBe(true);
  });

  it('a create lists every tile as added and deletes nothing', () => {
    const w = want('a', 'A', [tile('t'), tile('u')]);
    expect(computePlan([w], []).changes).toEqual([
      {
        action: 'create',
        key: 'a',
        name: 'A',
        sourceFile: 'a.yaml',
        fields: {},
        tiles: [
          { kind: 'added', name: 't' },
          { kind: 'added', name: 'u' },
        ],
        alerts: [],
        alertsDeleted: [],
        desired: w,
        tileIds: [undefined, undefined],
      },
    ]);
  });

  it('a prune delete carries no tile or alert changes of its own', () => {
    const orphan = dash('o1', 'Old', markerTags('old'));
    expect(computePlan([], [orphan], { prune: true, allowDeleteAll: true }, [])).toMatchObject({
      changes: [
        {
          action: 'delete',
          name: 'Old',
          id: 'o1',
          fields: {},
          tiles: [],
          alerts: [],
          alertsDeleted: [],
          reason: 'no dashboard file declares it',
          seen: orphan,
          seenAlerts: [],
        },
      ],
    });
    expect(
      Object.keys(
        computePlan([], [orphan], { prune: true, allowDeleteAll: true }).changes[0],
      ).sort(),
    ).toEqual(
      [
        'action',
        'alerts',
        'alertsDeleted',
        'fields',
        'id',
        'name',
        'reason',
        'seen',
        'tiles',
      ].sort(),
    );
  });

  it("alerts of another dashboard on a tile id that matches are not this dashboard's", () => {
    const d = dash('d1', 'A', markerTags('a'), [
      onService(tile('keep'), 'k1'),
      onService(tile('old'), 't2'),
    ]);
    const elsewhere = alert({ id: 'z1', name: 'far', dashboardId: 'd9', tileId: 't2' });
    const plan = computePlan([want('a', 'A', [tile('keep')])], [d], {}, [elsewhere]);
    expect(plan.changes[0].alertsDeleted).toEqual([]);
    expect(plan.changes[0].seenAlerts).toEqual([]);
  });

  it('a removed tile warns naming every added tile', () => {
    const d = dash('d1', 'A', markerTags('a'), [onService(tile('old'), 't2')]);
    const cold = alert({ id: 'x2', name: 'cold', dashboardId: 'd1', tileId: 't2' });
    const plan = computePlan([want('a', 'A', [tile('n1'), tile('n2')])], [d], {}, [cold]);
    expect(plan.changes[0].tiles.at(-1)?.warning).toBe(
      'if "old" was renamed (to "n1" or "n2"), its 1 alert(s) are deleted all the same: give the tile a `key` to keep them',
    );
  });

  it('without the alert list no alert changes are planned for an existing dashboard', () => {
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] })]);
    const plan = computePlan([w], [dash('d1', 'A', withMarker([], 'a', 'default', true), [t1])]);
    expect(plan.changes[0].alerts).toEqual([]);
    expect(plan.alertsRead).toBe(false);
  });

  it('a stray alerts tag is a marker change, not a user tag change; a user tag change is an update', () => {
    const plan = computePlan([want('a', 'A')], [dash('d1', 'A', [...markerTags('a'), ALERTS_TAG])]);
    expect(plan.changes[0].fields).toEqual({ marker: true });
    expect(plan.changes[0].action).toBe('update');
    const tagged = computePlan([want('a', 'A', [], ['x'])], [dash('d1', 'A', markerTags('a'))]);
    expect(tagged.changes[0]).toMatchObject({
      action: 'update',
      fields: { tags: { added: ['x'], removed: [] } },
    });
  });

  it('a null thresholdMax or a missing name on the service equals the file leaving them out', () => {
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] })]);
    const a = marked('a', 't', 'hot', {
      id: 'x1',
      dashboardId: 'd1',
      tileId: 't1',
      thresholdMax: null,
    });
    const d = dash('d1', 'A', withMarker([], 'a', 'default', true), [t1]);
    expect(computePlan([w], [d], {}, [a]).changes[0].alerts).toEqual([]);
    expect(alertShape(alert({ id: 'n', name: null })).name).toBe('');
    expect(alertShape(alert({ id: 'm', message: 'look here' })).message).toBe('look here');
  });

  it('an alert is matched on its own tile: the same name on another tile is a different alert', () => {
    const w = want('a', 'A', [
      tile('t', { alerts: [fileAlert('hot')] }),
      tile('u', { alerts: [fileAlert('hot')] }),
    ]);
    const d = dash('d1', 'A', withMarker([], 'a', 'default', true), [
      t1,
      onService(tile('u'), 't2'),
    ]);
    const onU = marked('a', 'u', 'hot', { id: 'x2', dashboardId: 'd1', tileId: 't2' });
    expect(
      computePlan([w], [d], {}, [onU]).changes[0].alerts.map((c) => [c.action, c.tile]),
    ).toEqual([['create', 't']]);
  });

  it('a declared alert on a tile still to be added is created, never matched to a tile-less alert', () => {
    const w = want('a', 'A', [tile('t'), tile('fresh', { alerts: [fileAlert('hot')] })]);
    const loose = marked('a', 'fresh', 'hot', { id: 'x1', dashboardId: 'd1' });
    const d = dash('d1', 'A', withMarker([], 'a', 'default', true), [t1]);
    expect(computePlan([w], [d], {}, [loose]).changes[0].alerts.map((c) => c.action)).toEqual([
      'create',
    ]);
  });

  it('an alert renamed by hand on the service is still found by the name in its marker', () => {
    const w = want('a', 'A', [tile('t', { alerts: [fileAlert('hot')] })]);
    const renamed = marked('a', 't', 'hot', {
      id: 'x1',
      dashboardId: 'd1',
      tileId: 't1',
    });
    renamed.name = 'HOT!';
    const d = dash('d1', 'A', withMarker([], 'a', 'default', true), [t1]);
    const [change] = computePlan([w], [d], {}, [renamed]).changes[0].alerts;
    expect(change).toMatchObject({
      action: 'update',
      id: 'x1',
      changes: [{ path: 'name', from: 'HOT!', to: 'hot' }],
    });
  });

  it('writeBody without tile ids sends none', () => {
    const body = writeBody(want('a', 'A', [tile('t')]));
    expect((body.tiles ?? []).map((x) => 'id' in x)).toEqual([false]);
  });
});

describe('a keyed tile renamed without alerts (no recorded identity)', () => {
  const at = (name: string, x: number, markdown: string) =>
    tile(name, { x, config: { displayType: 'markdown', markdown } });

  it('takes the one free tile with the same query and place', () => {
    const d = dash('d1', 'A', markerTags('a'), [
      onService(at('old', 0, 'q'), 't1'),
      onService(at('other', 6, 'q'), 't2'),
    ]);
    const w = want('a', 'A', [at('new', 0, 'q')]);
    w.tiles[0].key = 'k';
    expect(matchTiles(w, d)).toEqual(['t1']);
  });

  it('else the one free tile with the same query, else the same place; never a claimed one', () => {
    const d = dash('d1', 'A', markerTags('a'), [
      onService(at('old', 0, 'q'), 't1'),
      onService(at('keep', 6, 'r'), 't2'),
    ]);
    const byQuery = want('a', 'A', [{ ...at('new', 12, 'q'), key: 'k' }, at('keep', 6, 'r')]);
    expect(matchTiles(byQuery, d)).toEqual(['t1', 't2']);
    const byPlace = want('a', 'A', [{ ...at('new', 0, 'z'), key: 'k' }, at('keep', 6, 'r')]);
    expect(matchTiles(byPlace, d)).toEqual(['t1', 't2']);
    const nothing = want('a', 'A', [{ ...at('new', 12, 'z'), key: 'k' }, at('keep', 6, 'r')]);
    expect(matchTiles(nothing, d)).toEqual([undefined, 't2']);
  });

  it('ambiguous: none is taken and the tile is added; an unkeyed tile never guesses', () => {
    const d = dash('d1', 'A', markerTags('a'), [
      onService(at('o1', 0, 'q'), 't1'),
      onService(at('o2', 0, 'q'), 't2'),
    ]);
    expect(matchTiles(want('a', 'A', [{ ...at('new', 0, 'q'), key: 'k' }]), d)).toEqual([
      undefined,
    ]);
    const single = dash('d1', 'A', markerTags('a'), [onService(at('old', 0, 'q'), 't1')]);
    expect(matchTiles(want('a', 'A', [at('new', 0, 'q')]), single)).toEqual([undefined]);
    // A keyed tile found by name leaves the others as they are.
    expect(matchTiles(want('a', 'A', [{ ...at('old', 0, 'q'), key: 'k' }]), single)).toEqual([
      't1',
    ]);
  });
});

describe('a renamed keyed tile: the order of the tiers and what counts as the same place', () => {
  const at = (name: string, x: number, markdown: string, extra: Partial<DesiredTile> = {}) =>
    tile(name, { x, config: { displayType: 'markdown', markdown }, ...extra });
  const keyed = (t: DesiredTile) => ({ ...t, key: 'k' });

  it('the same query beats the same place', () => {
    const d = dash('d1', 'A', markerTags('a'), [
      onService(at('p', 0, 'z'), 't1'),
      onService(at('q', 6, 'q'), 't2'),
    ]);
    expect(matchTiles(want('a', 'A', [keyed(at('new', 0, 'q'))]), d)).toEqual(['t2']);
  });

  it('the same place means x, y, w and h', () => {
    for (const moved of [{ y: 4 }, { w: 3 }, { h: 2 }]) {
      const d = dash('d1', 'A', markerTags('a'), [onService(at('old', 0, 'z', moved), 't1')]);
      expect(
        matchTiles(want('a', 'A', [keyed(at('new', 0, 'q'))]), d),
        JSON.stringify(moved),
      ).toEqual([undefined]);
    }
  });

  it('a tile another file tile claimed is never taken, even when identical', () => {
    const d = dash('d1', 'A', markerTags('a'), [onService(at('keep', 0, 'q'), 't1')]);
    expect(matchTiles(want('a', 'A', [at('keep', 0, 'q'), keyed(at('new', 0, 'q'))]), d)).toEqual([
      't1',
      undefined,
    ]);
  });

  it('tiles matched by name keep their ids; unkeyed new names never guess', () => {
    const d = dash('d1', 'A', markerTags('a'), [
      onService(at('a', 0, 'q'), 't1'),
      onService(at('b', 6, 'r'), 't2'),
      onService(at('c', 12, 's'), 't3'),
      onService(at('d', 18, 'u'), 't4'),
    ]);
    const w = want('a', 'A', [
      keyed(at('a', 6, 'r')),
      { ...at('renamed', 12, 's'), key: 'k2' },
      at('plain', 18, 'u'),
    ]);
    expect(matchTiles(w, d)).toEqual(['t1', 't3', undefined]);
  });
});
