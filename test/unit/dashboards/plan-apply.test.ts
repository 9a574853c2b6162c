import { describe, expect, it } from 'vitest';
import { apiError, unexpectedResponse } from '../../../lib/api/errors';
import { applyPlan, checkSavedPlan, StalePlanError } from '../../../lib/dashboards/apply';
import { markerTags } from '../../../lib/dashboards/ownership';
import { computePlan, planDashboards, type Plan } from '../../../lib/dashboards/plan';
import {
  planToJson,
  renderApply,
  renderPlan,
  renderPlanMarkdown,
} from '../../../lib/dashboards/render';
import { validateFiles } from '../../../lib/dashboards/validate';
import type { DesiredDashboard } from '../../../lib/dashboards/types';
import type { Dashboard } from '../../../lib/schemas';
import { createFakeBackend } from './fake-backend';

async function desired(yaml: string, file = 'ops/cpu.yaml'): Promise<DesiredDashboard> {
  const { dashboards, issues } = await validateFiles([{ file, text: yaml }]);
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
  it('treats key order, a missing asRatio, tag order and tile order as equal', async () => {
    const want = await desired(CPU);
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
    expect(plan.counts).toEqual({ create: 0, update: 0, delete: 0, unchanged: 1, conflict: 0 });
    expect(renderPlan(plan)).toContain('No changes.');
  });

  it('keeps groupBy order significant and classifies added/changed/moved/removed tiles', async () => {
    const want = await desired(`name: CPU
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
      {
        kind: 'changed',
        name: 'load',
        id: 't1',
        fields: ['y', 'series'],
        changes: [
          { path: 'y', from: 0, to: 4 },
          { path: 'series.groupBy', from: ['host', 'pod'], to: ['pod', 'host'] },
        ],
      },
      {
        kind: 'moved',
        name: 'mem',
        id: 't2',
        fields: ['y'],
        changes: [{ path: 'y', from: 0, to: 4 }],
      },
      { kind: 'added', name: 'disk' },
      { kind: 'removed', name: 'net', id: 't3', alerts: [] },
    ]);
  });

  it('warns about alerts a tile removal would delete, reading alerts only when something is removed', async () => {
    const fake = createFakeBackend();
    const first = await planDashboards([await desired(CPU)], fake);
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
    const same = await planDashboards([await desired(CPU)], fake);
    expect(fake.calls).toEqual(['list']);
    expect(same.pending).toBe(false);

    const withoutMem = await desired(
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

  it('never touches a hand-made dashboard of the same name unless adopt, and prunes only owned ones with prune', async () => {
    const handMade: Dashboard = {
      id: 'h1',
      name: 'CPU',
      tags: ['cloudops'],
      tiles: [{ id: 'x1', name: 'load', x: 0, y: 0, w: 1, h: 1 }],
    };
    const orphan: Dashboard = { id: 'o1', name: 'Old', tags: markerTags('gone'), tiles: [] };
    const want = await desired(CPU);

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
  it('sends current tile ids so kept tiles and their alerts survive; 1 list + 1 write, steady state 1 request', async () => {
    const fake = createFakeBackend();
    await applyPlan(await planDashboards([await desired(CPU)], fake), fake);
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

    const moved = await desired(
      CPU.replace('{ name: mem, x: 12, y: 0', '{ name: mem, x: 12, y: 4'),
    );
    fake.calls.length = 0;
    const result = await applyPlan(await planDashboards([moved], fake), fake);
    expect(fake.calls).toEqual(['list', `update ${before.id}`]);
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

  it('counts a JSON 404 on delete as already deleted, but an HTML 404 (wrong URL) as a failure', async () => {
    const fake = createFakeBackend();
    await applyPlan(await planDashboards([await desired(CPU)], fake), fake);
    const id = fake.dashboards[0].id;
    const prune = async () => {
      const plan = computePlan([], await fake.listDashboards(), {
        prune: true,
        allowDeleteAll: true,
      });
      expect(plan.changes.map((c) => c.action)).toEqual(['delete']);
      return plan;
    };
    const htmlPlan = await prune();
    const realDelete = fake.deleteDashboard.bind(fake);
    fake.deleteDashboard = (dashboardId) =>
      Promise.reject(
        unexpectedResponse({
          method: 'DELETE',
          path: `/api/v2/dashboards/${dashboardId}`,
          status: 404,
          body: '<html><body>Cannot DELETE /api/v2/dashboards</body></html>',
          contentType: 'text/html',
          reason: 'a body that is not JSON',
        }),
      );
    const html = await applyPlan(htmlPlan, fake);
    expect(html.ok).toBe(false);
    expect(html.results[0]).toMatchObject({ status: 'failed', message: /answered 404/ });
    expect(fake.dashboards.map((d) => d.id)).toEqual([id]);

    const gonePlan = await prune();
    fake.deleteDashboard = realDelete;
    fake.dashboards = [];
    const gone = await applyPlan(gonePlan, fake);
    expect(gone.results[0]).toMatchObject({ status: 'deleted' });
  });

  it('a saved plan is refused, writing nothing, when a dashboard it touches was edited since', async () => {
    const fake = createFakeBackend();
    const a = await desired(CPU, 'a.yaml');
    const b = await desired(CPU.replace('name: CPU', 'name: Other'), 'b.yaml');
    await applyPlan(await planDashboards([a, b], fake), fake);
    const edit = [
      await desired(CPU.replace('h: 4 }', 'h: 5 }'), 'a.yaml'),
      await desired(CPU.replace('name: CPU', 'name: Other').replace('h: 4 }', 'h: 5 }'), 'b.yaml'),
    ];
    // Through JSON, as a saved plan file is.
    const plan = JSON.parse(JSON.stringify(await planDashboards(edit, fake))) as Plan;
    expect(plan.counts.update).toBe(2);
    const target = plan.changes.find((c) => c.key === 'a')!.id!;
    fake.dashboards.find((d) => d.id === target)!.name = 'renamed by hand';
    fake.calls.length = 0;
    const refused = await checkSavedPlan(plan, fake).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StalePlanError);
    expect((refused as Error).message).toMatch(/"CPU" \(.*\): edited since the plan/);
    expect(fake.calls).toEqual(['list']);

    // Unedited, the same saved plan applies exactly: no re-read per dashboard.
    fake.dashboards.find((d) => d.id === target)!.name = 'CPU';
    fake.calls.length = 0;
    await checkSavedPlan(plan, fake);
    const result = await applyPlan(plan, fake);
    expect(result.ok).toBe(true);
    expect(fake.calls.filter((c) => c.startsWith('update'))).toHaveLength(2);
  });

  it('a failed create is retried safely: re-list, find by marker, create only if absent', async () => {
    const fake = createFakeBackend();
    const realCreate = fake.createDashboard.bind(fake);
    let failures = 0;
    // First attempt lands but answers 502 (the worst case: it exists); second attempt: 503, not landed.
    fake.createDashboard = async (body, o) => {
      failures += 1;
      if (failures === 1) {
        await realCreate(body, o);
        throw apiError({ method: 'POST', path: '/dashboards', status: 502 });
      }
      return realCreate(body, o);
    };
    const result = await applyPlan(await planDashboards([await desired(CPU)], fake), fake);
    expect(result.results[0]).toMatchObject({ status: 'created' });
    expect(fake.dashboards).toHaveLength(1);
    expect(failures).toBe(1);

    const other = createFakeBackend();
    const realOther = other.createDashboard.bind(other);
    let n = 0;
    other.createDashboard = (body, o) => {
      n += 1;
      if (n === 1)
        return Promise.reject(apiError({ method: 'POST', path: '/dashboards', status: 503 }));
      return realOther(body, o);
    };
    const again = await applyPlan(await planDashboards([await desired(CPU)], other), other);
    expect(again.results[0]).toMatchObject({ status: 'created' });
    expect(other.dashboards).toHaveLength(1);
    expect(n).toBe(2);
  });

  it('an interrupt stops at once and lists what was applied and what was not', async () => {
    const fake = createFakeBackend();
    const files = await Promise.all(
      ['a', 'b', 'c'].map((k) => desired(CPU.replace('name: CPU', `name: ${k}`), `${k}.yaml`)),
    );
    const controller = new AbortController();
    const plan = await planDashboards(files, fake);
    const result = await applyPlan(plan, fake, {
      signal: controller.signal,
      onResult: () => controller.abort(),
    });
    expect(result.interrupted).toBe(true);
    expect(result.results.map((r) => r.status)).toEqual(['created', 'not applied', 'not applied']);
    expect(fake.dashboards).toHaveLength(1);
    expect(renderApply(result)).toMatch(
      /Interrupted\. Applied: dashboard "a"\. Not applied: dashboard "b", dashboard "c"\./,
    );
  });
});

const ALERTED = `name: CPU
tiles:
  - name: load
    x: 0
    y: 0
    w: 12
    h: 4
    alerts:
      - { name: hot, threshold: 5, thresholdType: above, interval: 5m, channel: { type: webhook, webhookId: w1 } }
  - { name: mem, x: 12, y: 0, w: 12, h: 4 }
`;

describe('alerts in the plan', () => {
  it('creates declared alerts, then plans a threshold change as an update with old -> new (pending)', async () => {
    const fake = createFakeBackend();
    const first = await planDashboards([await desired(ALERTED)], fake);
    expect(first.alertCounts).toEqual({ create: 1, update: 0, delete: 0 });
    const applied = await applyPlan(first, fake);
    expect(applied.ok).toBe(true);
    expect(fake.alerts).toHaveLength(1);
    expect(fake.alerts[0]).toMatchObject({
      name: 'hot',
      threshold: 5,
      tileId: fake.dashboards[0].tiles[0].id,
    });
    expect(fake.alerts[0].message).toMatch(/\[cloudops:d\/ops%2Fcpu\/load\/hot@/);

    fake.calls.length = 0;
    const same = await planDashboards([await desired(ALERTED)], fake);
    expect(same.pending).toBe(false);
    expect(fake.calls).toEqual(['list', 'listAlerts']);

    const raised = await planDashboards(
      [await desired(ALERTED.replace('threshold: 5', 'threshold: 10'))],
      fake,
    );
    expect(raised.pending).toBe(true);
    expect(raised.counts).toMatchObject({ update: 0, unchanged: 1 });
    expect(raised.changes[0].alerts).toEqual([
      expect.objectContaining({
        action: 'update',
        name: 'hot',
        tile: 'load',
        id: fake.alerts[0].id,
        changes: [{ path: 'threshold', from: 5, to: 10 }],
      }),
    ]);
    const text = renderPlan(raised);
    expect(text).toContain('~ alert "hot" on tile "load"');
    expect(text).toContain('threshold: 5 → 10');
    expect(text).toMatch(
      /^Plan: 0 to create, 1 alert to update, 0 to delete, 1 dashboard unchanged\.$/m,
    );
    fake.calls.length = 0;
    await applyPlan(raised, fake);
    expect(fake.calls).toEqual([`updateAlert ${fake.alerts[0].id}`]);
    expect(fake.alerts[0].threshold).toBe(10);

    const dropped = await planDashboards(
      [await desired(ALERTED.replace(/ {4}alerts:\n.*\n/, ''))],
      fake,
    );
    expect(dropped.changes[0].alerts).toMatchObject([{ action: 'delete', name: 'hot' }]);
    await applyPlan(dropped, fake);
    expect(fake.alerts).toHaveLength(0);
    // The alerts tag is gone with the last alert: a no-op plan is one request again.
    fake.calls.length = 0;
    const quiet = await planDashboards(
      [await desired(ALERTED.replace(/ {4}alerts:\n.*\n/, ''))],
      fake,
    );
    expect(quiet.pending).toBe(false);
    expect(fake.calls).toEqual(['list']);
  });

  it('a tile with a key keeps its id and alerts across a rename; without a key the loss is called out', async () => {
    const fake = createFakeBackend();
    const keyed = ALERTED.replace('  - name: load\n', '  - key: load-tile\n    name: load\n');
    await applyPlan(await planDashboards([await desired(keyed)], fake), fake);
    const tileId = fake.dashboards[0].tiles[0].id;
    const alertId = fake.alerts[0].id;

    const renamed = await planDashboards(
      [await desired(keyed.replace('name: load', 'name: Load avg'))],
      fake,
    );
    const change = renamed.changes[0];
    expect(change.tiles).toEqual([
      expect.objectContaining({ kind: 'renamed', name: 'Load avg', from: 'load', id: tileId }),
    ]);
    expect(change.alertsDeleted).toEqual([]);
    expect(renderPlan(renamed)).toContain('~ tile "Load avg" renamed from "load" (keeps id');
    await applyPlan(renamed, fake);
    expect(fake.dashboards[0].tiles[0]).toMatchObject({ id: tileId, name: 'Load avg' });
    expect(fake.alerts.map((a) => a.id)).toEqual([alertId]);
    expect(
      (await planDashboards([await desired(keyed.replace('name: load', 'name: Load avg'))], fake))
        .pending,
    ).toBe(false);

    const plain = createFakeBackend();
    await applyPlan(await planDashboards([await desired(ALERTED)], plain), plain);
    const lossy = await planDashboards(
      [await desired(ALERTED.replace('name: load', 'name: Load avg'))],
      plain,
    );
    const removed = lossy.changes[0].tiles.find((t) => t.kind === 'removed')!;
    expect(removed.alerts).toHaveLength(1);
    expect(removed.warning).toMatch(
      /if "load" was renamed \(to "Load avg"\).*give the tile a `key`/,
    );
    expect(renderPlan(lossy)).toContain('give the tile a `key` to keep them');
  });
});

describe('ownership per owner', () => {
  it("never touches another owner's dashboards: same key is a conflict, prune spares them", async () => {
    const theirs: Dashboard = {
      id: 'o1',
      name: 'CPU',
      tags: markerTags('ops/cpu', 'team-b'),
      tiles: [],
    };
    const theirOrphan: Dashboard = {
      id: 'o2',
      name: 'Old',
      tags: markerTags('gone', 'team-b'),
      tiles: [],
    };
    const plan = computePlan([await desired(CPU)], [theirs, theirOrphan], {
      owner: 'team-a',
      prune: true,
    });
    expect(plan.changes.map((c) => [c.action, c.id])).toEqual([['conflict', 'o1']]);
    expect(plan.changes[0].reason).toMatch(/owned by "team-b".*not taken over/);
    expect(renderPlan(plan)).toMatch(/\[!\] conflict dashboard "CPU"/);
  });

  it('state written before owners belongs to the default owner: no churn', async () => {
    const legacy: Dashboard = {
      id: 'd1',
      name: 'CPU',
      tags: ['cloudops', 'a', 'b', markerTags('ops/cpu')[1]],
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
      ],
    };
    expect(computePlan([await desired(CPU)], [legacy]).pending).toBe(false);
    // Another owner sees it as someone else's.
    expect(computePlan([await desired(CPU)], [legacy], { owner: 'team-a' }).changes[0].action).toBe(
      'conflict',
    );
  });

  it('--target plans only the named keys, and prunes only those', async () => {
    const orphan: Dashboard = { id: 'o1', name: 'Old', tags: markerTags('gone'), tiles: [] };
    const other = await desired(CPU.replace('name: CPU', 'name: Other'), 'other.yaml');
    const plan = computePlan([await desired(CPU), other], [orphan], {
      targets: ['other'],
      prune: true,
    });
    expect(plan.changes.map((c) => [c.action, c.key])).toEqual([['create', 'other']]);
    const pruneOne = computePlan([await desired(CPU)], [orphan], {
      targets: ['gone'],
      prune: true,
    });
    expect(pruneOne.changes.map((c) => [c.action, c.id])).toEqual([['delete', 'o1']]);
  });
});

describe('rendering', () => {
  it('colours only when asked, and markdown puts signs in the first column', async () => {
    const plan = computePlan([await desired(CPU)], []);
    expect(renderPlan(plan, { color: true })).toContain('\x1b[32m[+] create');
    expect(renderPlan(plan)).not.toContain('\x1b[');
    const md = renderPlanMarkdown(plan, { service: 'svc-1' });
    expect(md).toContain('### cloudops dashboards plan for service `svc-1`');
    expect(md).toMatch(/```diff\n\+ \[\+\] create dashboard "CPU"/);
  });
});
