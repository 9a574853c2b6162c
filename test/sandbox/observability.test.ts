/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index';
import { mgmt, obs } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimits: { management: { limit: 1000, windowMs: 10_000 } } });
});
afterAll(() => sb.close());

const HEX24 = /^[0-9a-f]{24}$/;
const tile = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  x: 0,
  y: 0,
  w: 6,
  h: 3,
  series: [{ type: 'time', dataSource: 'events', aggFn: 'count', where: '' }],
  ...extra,
});

async function dashboardWithAlert() {
  const created = await obs(sb, 'POST', '/dashboards', {
    name: 'tiles',
    tags: ['t'],
    tiles: [tile('a'), tile('b'), tile('c')],
  });
  expect(created.status).toBe(200);
  const dash = created.json.data;
  const [a, b, c] = dash.tiles as { id: string }[];
  const alertBody = (tileId: string) => ({
    name: `on ${tileId}`,
    source: 'tile',
    dashboardId: dash.id,
    tileId,
    threshold: 1,
    thresholdType: 'above',
    interval: '5m',
    channel: { type: 'webhook', webhookId: sb.info.webhookId },
  });
  const onA = await obs(sb, 'POST', '/alerts', alertBody(a.id));
  const onB = await obs(sb, 'POST', '/alerts', alertBody(b.id));
  expect(onA.status, onA.text).toBe(200);
  expect(onB.status).toBe(200);
  return { dash, a: a, b: b, c: c, alertA: onA.json.data, alertB: onB.json.data };
}

describe('dashboards', () => {
  it('creates dashboards with fresh 24-hex ids for the dashboard and every tile (even when ids are sent)', async () => {
    const res = await obs(sb, 'POST', '/dashboards', {
      name: 'd',
      tiles: [tile('x', { id: 'aaaaaaaaaaaaaaaaaaaaaaaa' })],
    });
    expect(res.json.data.id).toMatch(HEX24);
    expect(res.json.data.tiles[0].id).toMatch(HEX24);
    expect(res.json.data.tiles[0].id).not.toBe('aaaaaaaaaaaaaaaaaaaaaaaa');
  });

  it('PUT replaces tiles: named existing ids are kept, others get new ids, alerts on removed tiles are deleted', async () => {
    const { dash, a, b, c, alertA, alertB } = await dashboardWithAlert();
    const foreignTileId = sb.store.state.dashboards[0].tiles[0].id; // exists, but on another dashboard
    const put = await obs(sb, 'PUT', `/dashboards/${dash.id}`, {
      tiles: [
        tile('a2', { id: a.id }),
        tile('b-without-id'),
        tile('foreign', { id: foreignTileId }),
        tile('unknown', { id: 'bbbbbbbbbbbbbbbbbbbbbbbb' }),
      ],
    });
    expect(put.status).toBe(200);
    const ids = (put.json.data.tiles as { id: string; name: string }[]).map((t) => t.id);
    expect(ids[0]).toBe(a.id);
    expect(put.json.data.tiles[0].name).toBe('a2');
    for (const fresh of ids.slice(1)) {
      expect(fresh).toMatch(HEX24);
      expect([a.id, b.id, c.id, foreignTileId, 'bbbbbbbbbbbbbbbbbbbbbbbb']).not.toContain(fresh);
    }
    expect(put.json.data.name).toBe('tiles'); // fields not sent are kept
    expect((await obs(sb, 'GET', `/alerts/${alertA.id}`)).status).toBe(200);
    const gone = await obs(sb, 'GET', `/alerts/${alertB.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ message: 'Alert not found' });
  });

  it('validates the body with field paths and the grid limits', async () => {
    const res = await obs(sb, 'POST', '/dashboards', {
      name: 'bad',
      tiles: [tile('t', { w: 'wide' }), tile('u', { x: 30 })],
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/^Body validation failed: tiles\[0\]\.w: /);
    const grid = await obs(sb, 'POST', '/dashboards', {
      name: 'bad',
      tiles: [tile('u', { x: 30 })],
    });
    expect(grid.json.message).toContain('tiles[0].x');
  });

  it('answers 404 Dashboard not found', async () => {
    const res = await obs(sb, 'GET', '/dashboards/cccccccccccccccccccccccc');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ message: 'Dashboard not found' });
  });

  it('shares state with the management API observability routes', async () => {
    const created = await mgmt(
      sb,
      'POST',
      `/services/${sb.info.serviceId}/observability/dashboards`,
      { name: 'via mgmt', tiles: [tile('m')] },
    );
    expect(created.status).toBe(200);
    const id = created.json.result.id;
    expect((await obs(sb, 'GET', `/dashboards/${id}`)).json.data.name).toBe('via mgmt');
    const listed = await mgmt(sb, 'GET', `/services/${sb.info.serviceId}/observability/dashboards`);
    expect(listed.json.result.map((d: { id: string }) => d.id)).toContain(id);
    const otherService = await mgmt(
      sb,
      'GET',
      `/services/${sb.info.serviceIds[1]}/observability/dashboards/${id}`,
    );
    expect(otherService.status).toBe(404);
    expect(otherService.json.error).toBe('NOT_FOUND: Dashboard not found');
    const sources = await mgmt(sb, 'GET', `/services/${sb.info.serviceId}/observability/sources`);
    expect(sources.json.result.length).toBeGreaterThanOrEqual(2);
    expect(
      (await mgmt(sb, 'DELETE', `/services/${sb.info.serviceId}/observability/dashboards/${id}`))
        .status,
    ).toBe(200);
    expect((await obs(sb, 'GET', `/dashboards/${id}`)).status).toBe(404);
  });
});

describe('alerts', () => {
  it('creates an alert record of spec 2.4 and lists it through both APIs', async () => {
    const { dash, a, alertA } = await dashboardWithAlert();
    expect(alertA).toMatchObject({
      dashboard: dash.id,
      tileId: a.id,
      state: 'OK',
      interval: '5m',
      silenced: false,
    });
    expect(alertA.id).toMatch(HEX24);
    expect(typeof alertA.team).toBe('string');
    const viaMgmt = await mgmt(
      sb,
      'GET',
      `/services/${sb.info.serviceId}/observability/alerts/${alertA.id}`,
    );
    expect(viaMgmt.json.result.id).toBe(alertA.id);
  });

  it('rejects bad interval, thresholdType, missing dashboard or tile, and unknown webhook', async () => {
    const { dash, a } = await dashboardWithAlert();
    const base = {
      name: 'n',
      source: 'tile',
      dashboardId: dash.id,
      tileId: a.id,
      threshold: 1,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhookId: sb.info.webhookId },
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ interval: '2m' }, 'interval'],
      [{ thresholdType: 'sideways' }, 'thresholdType'],
      [{ dashboardId: 'dddddddddddddddddddddddd' }, 'dashboardId'],
      [{ tileId: 'eeeeeeeeeeeeeeeeeeeeeeee' }, 'tileId'],
      [
        { channel: { type: 'webhook', webhookId: 'ffffffffffffffffffffffff' } },
        'channel.webhookId',
      ],
    ];
    for (const [override, field] of cases) {
      const res = await obs(sb, 'POST', '/alerts', { ...base, ...override });
      expect(res.status, field).toBe(400);
      expect(res.json.message).toMatch(
        new RegExp(`^Body validation failed: .*${field.replace('.', '\\.')}`),
      );
    }
    const viaMgmt = await mgmt(sb, 'POST', `/services/${sb.info.serviceId}/observability/alerts`, {
      ...base,
      interval: '7m',
    });
    expect(viaMgmt.status).toBe(400);
    expect(viaMgmt.json.error).toMatch(/^BAD_REQUEST: Body validation failed: interval/);
  });

  it('updates an alert with PUT (merged, revalidated) and deletes it', async () => {
    const { alertA, c } = await dashboardWithAlert();
    const put = await obs(sb, 'PUT', `/alerts/${alertA.id}`, { threshold: 42, tileId: c.id });
    expect(put.status).toBe(200);
    expect(put.json.data).toMatchObject({ threshold: 42, tileId: c.id, interval: '5m' });
    const bad = await obs(sb, 'PUT', `/alerts/${alertA.id}`, { interval: '3h' });
    expect(bad.status).toBe(400);
    expect((await obs(sb, 'DELETE', `/alerts/${alertA.id}`)).status).toBe(200);
    expect((await obs(sb, 'GET', `/alerts/${alertA.id}`)).status).toBe(404);
  });

  it('deleting a dashboard deletes its alerts', async () => {
    const { dash, alertA } = await dashboardWithAlert();
    expect((await obs(sb, 'DELETE', `/dashboards/${dash.id}`)).status).toBe(200);
    expect((await obs(sb, 'GET', `/alerts/${alertA.id}`)).status).toBe(404);
  });
});
