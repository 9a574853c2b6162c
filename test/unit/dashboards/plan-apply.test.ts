import { describe, expect, it } from 'vitest';
import { UnexpectedResponseError } from '../../../lib/api/errors';
import { applyPlan } from '../../../lib/dashboards/apply';
import { markerTags } from '../../../lib/dashboards/ownership';
import { computePlan, planDashboards } from '../../../lib/dashboards/plan';
import { planToJson, renderPlan } from '../../../lib/dashboards/render';
import { validateFiles } from '../../../lib/dashboards/validate';
import type { DesiredDashboard } from '../../../lib/dashboards/types';
import type { Dashboard } from '../../../lib/schemas';
import { createFakeBackend } from './fake-backend';

function desired(yaml: string, file = 'ops/cpu.yaml'): DesiredDashboard {
  const { dashboards, issues } = validateFiles([{ file, text: yaml }]);
  expect(issues).toEqual([]);
  return dashboards[0];
}

const CPU = `name: CPU
tags: [b, a]
tiles:
  - { name: load, x: 0, y: 0, w: 12, h: 4, series: [{ type: time, aggFn: avg, groupBy: [host, pod] }] }
  - { name: mem, x: 12, y: 0, w: 12, h: 4 }
`;

describe('plan', () => {
  it('treats key order, a missing asRatio, tag order and tile order as equal', () => {
    const want = desired(CPU);
    const actual: Dashboard = {
      id: 'd1',
      name: 'CPU',
      tags: ['cloudops', 'a', ...markerTags('ops/cpu').slice(1), 'b'],
      tiles: [
        { id: 't2', h: 4, w: 12, y: 0, x: 12, name: 'mem' },
        {
          id: 't1',
          name: 'load',
          x: 0,
          y: 0,
          w: 12,
          h: 4,
          asRatio: false,
          series: [{ groupBy: ['host', 'pod'], aggFn: 'avg', type: 'time', extra: 1 }],
        },
      ],
    };
    const plan = computePlan([want], [actual]);
    expect(plan.pending).toBe(false);
    expect(plan.counts).toEqual({ create: 0, update: 0, delete: 0, unchanged: 1 });
    expect(renderPlan(plan)).toContain('No changes.');
  });

  it('keeps groupBy order significant and classifies added/changed/moved/removed tiles', () => {
    const want = desired(`name: CPU
tiles:
  - { name: load, x: 0, y: 4, w: 12, h: 4, series: [{ type: time, aggFn: avg, groupBy: [pod, host] }] }
  - { name: mem, x: 12, y: 4, w: 12, h: 4 }
  - { name: disk, x: 0, y: 0, w: 6, h: 4 }
`);
    const actual: Dashboard = {
      id: 'd1',
      name: 'CPU old',
      tags: markerTags('ops/cpu'),
      tiles: [
        {
          id: 't1',
          name: 'load',
          x: 0,
          y: 0,
          w: 12,
          h: 4,
          series: [{ type: 'time', aggFn: 'avg', groupBy: ['host', 'pod'] }],
        },
        { id: 't2', name: 'mem', x: 12, y: 0, w: 12, h: 4 },
        { id: 't3', name: 'net', x: 0, y: 8, w: 6, h: 4 },
      ],
    };
    const plan = computePlan([want], [actual]);
    const change = plan.changes[0];
    expect(change.action).toBe('update');
    expect(change.fields.name).toEqual({ from: 'CPU old', to: 'CPU' });
    expect(change.tiles).toEqual([
      { kind: 'changed', name: 'load', id: 't1', fields: ['y', 'series'] },
      { kind: 'moved', name: 'mem', id: 't2', fields: ['y'] },
      { kind: 'added', name: 'disk' },
      { kind: 'removed', name: 'net', id: 't3', alerts: [] },
    ]);
  });

  it('warns about alerts a tile removal would delete, reading alerts only when something is removed', async () => {
    const fake = createFakeBackend();
    const first = await planDashboards([desired(CPU)], fake);
    await applyPlan(first, fake);
    const d = fake.dashboards[0];
    await fake.createAlert({
      name: 'hot',
      dashboardId: d.id,
      tileId: d.tiles[1].id,
      threshold: 1,
      interval: '5m',
      source: 'tile',
      thresholdType: 'above',
      channel: { type: 'webhook', webhookId: 'w' },
    });
    fake.calls.length = 0;
    const same = await planDashboards([desired(CPU)], fake);
    expect(fake.calls).toEqual(['list']);
    expect(same.pending).toBe(false);

    const withoutMem = desired(
      `name: CPU\ntags: [a, b]\ntiles:\n  - { name: load, x: 0, y: 0, w: 12, h: 4, series: [{ type: time, aggFn: avg, groupBy: [host, pod] }] }\n`,
    );
    fake.calls.length = 0;
    const plan = await planDashboards([withoutMem], fake);
    expect(fake.calls).toEqual(['list', 'listAlerts']);
    expect(plan.changes[0].alertsDeleted).toEqual([
      { id: fake.alerts[0].id, name: 'hot', tileName: 'mem' },
    ]);
    expect(renderPlan(plan)).toMatch(/WARNING: removing this tile deletes 1 alert\(s\): "hot"/);
    expect(JSON.stringify(planToJson(plan))).not.toContain('"seen"');
  });

  it('never touches a hand-made dashboard of the same name unless adopt, and prunes only owned ones with prune', () => {
    const handMade: Dashboard = {
      id: 'h1',
      name: 'CPU',
      tags: ['cloudops'],
      tiles: [{ id: 'x1', name: 'load', x: 0, y: 0, w: 1, h: 1 }],
    };
    const orphan: Dashboard = { id: 'o1', name: 'Old', tags: markerTags('gone'), tiles: [] };
    const want = desired(CPU);

    const plain = computePlan([want], [handMade, orphan]);
    expect(plain.changes.map((c) => [c.action, c.id])).toEqual([['create', undefined]]);
    expect(plain.notes.join('\n')).toMatch(/hand-made dashboard "CPU" \(h1\) is left alone/);
    expect(plain.notes.join('\n')).toMatch(
      /owned dashboard "Old" \(o1\) has no file; --prune deletes it/,
    );

    const pruned = computePlan([want], [handMade, orphan], { prune: true });
    expect(pruned.changes.map((c) => [c.action, c.id])).toEqual([
      ['create', undefined],
      ['delete', 'o1'],
    ]);

    const adopted = computePlan([want], [handMade], { adopt: true });
    expect(adopted.changes[0]).toMatchObject({ action: 'update', id: 'h1', adopted: true });
    expect(adopted.changes[0].tiles.find((t) => t.name === 'load')).toMatchObject({
      kind: 'changed',
      id: 'x1',
    });
  });
});

describe('apply', () => {
  it('sends current tile ids so kept tiles and their alerts survive; steady state costs one request', async () => {
    const fake = createFakeBackend();
    await applyPlan(await planDashboards([desired(CPU)], fake), fake);
    const before = structuredClone(fake.dashboards[0]);
    await fake.createAlert({
      name: 'hot',
      dashboardId: before.id,
      tileId: before.tiles[0].id,
      threshold: 1,
      interval: '5m',
      source: 'tile',
      thresholdType: 'above',
      channel: { type: 'webhook', webhookId: 'w' },
    });

    const moved = desired(CPU.replace('{ name: mem, x: 12, y: 0', '{ name: mem, x: 12, y: 4'));
    fake.calls.length = 0;
    const result = await applyPlan(await planDashboards([moved], fake), fake);
    expect(fake.calls).toEqual(['list', `get ${before.id}`, `update ${before.id}`]);
    expect(result.results[0]).toMatchObject({
      status: 'updated',
      tiles: before.tiles.map((t) => ({ name: t.name, id: t.id })),
    });
    expect(fake.alerts).toHaveLength(1);

    fake.calls.length = 0;
    const again = await applyPlan(await planDashboards([moved], fake), fake);
    expect(fake.calls).toEqual(['list']);
    expect(again.results[0].status).toBe('unchanged');
  });

  it('counts a JSON 404 as already deleted, but an HTML 404 (wrong URL) as a failure', async () => {
    const fake = createFakeBackend();
    const owned = desired(CPU);
    await applyPlan(await planDashboards([owned], fake), fake);
    const id = fake.dashboards[0].id;
    const prune = async () => {
      const plan = computePlan([], await fake.listDashboards(), { prune: true, adopt: false });
      expect(plan.changes.map((c) => c.action)).toEqual(['delete']);
      return plan;
    };

    const htmlPlan = await prune();
    const realGet = fake.getDashboard.bind(fake);
    fake.getDashboard = (dashboardId) =>
      Promise.reject(
        new UnexpectedResponseError({
          method: 'GET',
          path: `/api/v2/dashboards/${dashboardId}`,
          status: 404,
          body: '<html><body>Cannot GET /api/v2/dashboards</body></html>',
          contentType: 'text/html',
          reason: 'a body that is not JSON',
        }),
      );
    const html = await applyPlan(htmlPlan, fake);
    expect(html.ok).toBe(false);
    expect(html.results[0]).toMatchObject({ status: 'failed', message: /answered 404/ });
    expect(fake.dashboards.map((d) => d.id)).toEqual([id]);

    const gonePlan = await prune();
    fake.dashboards = [];
    fake.getDashboard = realGet;
    const gone = await applyPlan(gonePlan, fake);
    expect(gone.results[0]).toMatchObject({ status: 'deleted' });
  });

  it('aborts only the dashboard edited since the plan, with a clear message', async () => {
    const fake = createFakeBackend();
    const a = desired(CPU, 'a.yaml');
    const b = desired(CPU.replace('name: CPU', 'name: Other'), 'b.yaml');
    await applyPlan(await planDashboards([a, b], fake), fake);
    const edit = (yaml: string) => [
      desired(yaml.replace('h: 4 }', 'h: 5 }'), 'a.yaml'),
      desired(yaml.replace('name: CPU', 'name: Other').replace('h: 4 }', 'h: 5 }'), 'b.yaml'),
    ];
    const plan = await planDashboards(edit(CPU), fake);
    expect(plan.counts.update).toBe(2);
    const target = plan.changes.find((c) => c.key === 'a')!.id!;
    fake.beforeGet = (id) => {
      if (id === target) fake.dashboards.find((d) => d.id === id)!.name = 'renamed by hand';
    };
    const result = await applyPlan(plan, fake);
    expect(result.ok).toBe(false);
    const [ra, rb] = result.results;
    expect(ra).toMatchObject({ key: 'a', status: 'aborted' });
    expect(ra.message).toMatch(/"renamed by hand" .* was edited since the plan; not overwritten/);
    expect(rb).toMatchObject({ key: 'b', status: 'updated' });
    expect(fake.dashboards.find((d) => d.id === target)!.name).toBe('renamed by hand');
  });
});
