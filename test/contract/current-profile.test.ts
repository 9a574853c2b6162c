/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- raw JSON bodies of the HTTP API under test */
/**
 * Every response of the `current` sandbox profile, over real HTTP, against the field lists and
 * enums of API-FACTS.md (written down as data in ./api-facts.ts), plus the refusals the current
 * service makes that the spec's snapshot did not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import { createLogger } from '../../lib/log';
import { managementAuth } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import { admin, basic, mgmt, obs } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';
import * as facts from './api-facts';
import { conforms } from './support';

let sb: Sandbox;
beforeAll(async () => {
  // Request lines in the captured output: the leak scan checks what the sandbox logs too.
  sb = await startTestSandbox({
    profile: 'current',
    logger: createLogger({ level: 'debug', fields: { component: 'sandbox' } }),
  });
});
afterAll(() => sb.close());

const logsSource = () => sb.info.sourceId;
const seriesTile = (name: string, type = 'time', extra: Record<string, unknown> = {}) => ({
  name,
  x: 0,
  y: 0,
  w: 6,
  h: 3,
  series: [
    {
      type,
      sourceId: logsSource(),
      aggFn: 'count',
      where: 'level:error',
      whereLanguage: 'lucene',
      ...(type === 'time' || type === 'table' ? { groupBy: ['service'] } : {}),
      ...extra,
    },
  ],
});
const configTile = (name: string, displayType = 'line') => ({
  name,
  x: 6,
  y: 0,
  w: 6,
  h: 3,
  config: {
    displayType,
    sourceId: logsSource(),
    select: [{ aggFn: 'avg', valueExpression: 'Duration', where: '', whereLanguage: 'sql' }],
  },
});
const tileAlert = (dashboardId: string, tileId: string, extra: Record<string, unknown> = {}) => ({
  name: 'contract alert',
  source: 'tile',
  dashboardId,
  tileId,
  threshold: 5,
  thresholdType: 'above',
  interval: '5m',
  channel: { type: 'webhook', webhookId: sb.info.webhookId },
  ...extra,
});
const mgmtObs = (method: string, path: string, body?: unknown) =>
  mgmt(sb, method, `/services/${sb.info.serviceId}/observability${path}`, body);

describe('current profile: dashboards on /api/v2', () => {
  it('lists the seeded dashboards with every tile in the config form', async () => {
    const res = await obs(sb, 'GET', '/dashboards');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['data']);
    expect(res.json.data.length).toBeGreaterThan(0);
    for (const d of res.json.data) conforms(facts.dashboard, d, `dashboard ${d.name}`);
  });

  it('accepts series (with sourceId/whereLanguage) and config tiles, answers both as config', async () => {
    const created = await obs(sb, 'POST', '/dashboards', {
      name: 'contract',
      tags: ['contract'],
      tiles: [seriesTile('errors'), seriesTile('count', 'number'), configTile('latency')],
    });
    expect(created.status).toBe(200);
    conforms(facts.dashboard, created.json.data, 'created');
    const [errors, count, latency] = created.json.data.tiles;
    expect(errors.config).toEqual({
      displayType: 'line',
      sourceId: logsSource(),
      asRatio: false,
      fillNulls: true,
      groupBy: 'service',
      select: [
        { valueExpression: '', aggFn: 'count', where: 'level:error', whereLanguage: 'lucene' },
      ],
    });
    expect(count.config.displayType).toBe('number');
    expect(latency.config.select[0]).toEqual({
      valueExpression: 'Duration',
      aggFn: 'avg',
      where: '',
      whereLanguage: 'sql',
    });

    const id = created.json.data.id;
    const read = await obs(sb, 'GET', `/dashboards/${id}`);
    conforms(facts.dashboard, read.json.data, 'read');
    expect(read.json.data.tiles).toEqual(created.json.data.tiles);

    // Sending back what was read keeps every tile id and changes nothing.
    const put = await obs(sb, 'PUT', `/dashboards/${id}`, {
      name: 'contract',
      tiles: read.json.data.tiles,
    });
    expect(put.status).toBe(200);
    conforms(facts.dashboard, put.json.data, 'updated');
    expect(put.json.data.tiles).toEqual(read.json.data.tiles);
  });

  it('refuses a series without sourceId, where and whereLanguage, naming each path', async () => {
    const res = await obs(sb, 'POST', '/dashboards', {
      name: 'spec-shaped',
      tiles: [
        {
          name: 't',
          x: 0,
          y: 0,
          w: 4,
          h: 2,
          series: [{ type: 'time', dataSource: 'events', aggFn: 'count', groupBy: [] }],
        },
      ],
    });
    expect(res.status).toBe(400);
    conforms(facts.apiError, res.json, 'error');
    expect(res.json.message).toMatch(/^Body validation failed: tiles\.0\.series\.0\.sourceId: /);
    expect(res.json.message).toContain('; tiles.0.series.0.where: ');
    expect(res.json.message).toContain('; tiles.0.series.0.whereLanguage: ');
  });

  it('refuses a tile with neither form or both, duplicate tile ids, unknown sources', async () => {
    const neither = await obs(sb, 'POST', '/dashboards', {
      name: 'n',
      tiles: [{ name: 't', x: 0, y: 0, w: 4, h: 2 }],
    });
    expect([neither.status, neither.json.message]).toEqual([
      400,
      'Body validation failed: tiles.0: a tile needs exactly one of series or config',
    ]);
    const both = await obs(sb, 'POST', '/dashboards', {
      name: 'b',
      tiles: [{ ...seriesTile('t'), config: configTile('t').config }],
    });
    expect(both.status).toBe(400);

    const dup = '0123456789abcdef01234567';
    const duplicate = await obs(sb, 'POST', '/dashboards', {
      name: 'd',
      tiles: [
        { ...seriesTile('a'), id: dup },
        { ...seriesTile('b'), id: dup },
      ],
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.json.message).toContain(`tiles.1.id: Duplicate tile ID: ${dup}`);

    const unknown = 'fedcba9876543210fedcba98';
    const missing = await obs(sb, 'POST', '/dashboards', {
      name: 'u',
      tiles: [seriesTile('a', 'time', { sourceId: unknown })],
    });
    expect([missing.status, missing.json.message]).toEqual([
      400,
      `Could not find the following source IDs: ${unknown}`,
    ]);
  });

  it('missing dashboards: plain-text 404 on GET/PUT, 200 {} on DELETE; malformed ids 400', async () => {
    const absent = '0123456789abcdef01234567';
    for (const method of ['GET', 'PUT']) {
      const res = await obs(
        sb,
        method,
        `/dashboards/${absent}`,
        method === 'PUT' ? { name: 'x', tiles: [] } : undefined,
      );
      expect([res.status, res.text]).toEqual([404, 'Not Found']);
    }
    const del = await obs(sb, 'DELETE', `/dashboards/${absent}`);
    expect([del.status, del.json]).toEqual([200, {}]);
    const bad = await obs(sb, 'GET', '/dashboards/not-an-id');
    expect([bad.status, bad.json]).toEqual([
      400,
      { message: 'Params validation failed: id: Invalid ObjectId' },
    ]);
  });

  it('validate is a dry run: 200 with { valid, errors, normalized } and nothing written', async () => {
    const before = sb.store.state.dashboards.length;
    const good = await obs(sb, 'POST', '/dashboards/validate', {
      name: 'v',
      tiles: [seriesTile('a')],
    });
    expect(good.status).toBe(200);
    conforms(facts.validateResult, good.json.data ?? good.json, 'validate');
    const badRes = await obs(sb, 'POST', '/dashboards/validate', {
      name: 'v',
      tiles: [{ name: 'x', x: 0, y: 0, w: 1, h: 1 }],
    });
    const body = badRes.json.data ?? badRes.json;
    expect(badRes.status).toBe(200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual([
      { path: 'tiles.0', message: 'a tile needs exactly one of series or config' },
    ]);
    expect(sb.store.state.dashboards.length).toBe(before);
  });
});

describe('current profile: alerts on /api/v2', () => {
  it('lists alerts page by page with meta and X-Total-Count, in the current names', async () => {
    const all = await obs(sb, 'GET', '/alerts');
    expect(all.status).toBe(200);
    expect(Object.keys(all.json).sort()).toEqual(['data', 'meta']);
    conforms(facts.paginationMeta, all.json.meta, 'meta');
    expect(all.headers.get('x-total-count')).toBe(String(all.json.meta.total));
    for (const a of all.json.data) conforms(facts.apiAlert, a, `alert ${a.id}`);
    // The seed holds one silenced alert (an object) and one unnamed alert (name: null).
    expect(
      all.json.data.filter((a: any) => a.silenced && typeof a.silenced === 'object'),
    ).toHaveLength(1);
    expect(all.json.data.filter((a: any) => a.name === null)).toHaveLength(1);
    expect(all.json.data.some((a: any) => a.source === 'saved_search')).toBe(true);

    const second = await obs(sb, 'GET', '/alerts?limit=1&offset=1');
    expect(second.json.meta).toEqual({ total: all.json.meta.total, limit: 1, offset: 1 });
    expect(second.json.data).toEqual([all.json.data[1]]);
    const bad = await obs(sb, 'GET', '/alerts?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/^Query validation failed: limit: /);
  });

  it('creates tile and saved_search alerts with all eight threshold types; refuses the spec words', async () => {
    const d = await obs(sb, 'POST', '/dashboards', {
      name: 'alerting',
      tiles: [seriesTile('line'), seriesTile('table', 'table')],
    });
    const [line, table] = d.json.data.tiles;
    for (const thresholdType of facts.THRESHOLD_TYPES) {
      const between = thresholdType === 'between' || thresholdType === 'not_between';
      const res = await obs(
        sb,
        'POST',
        '/alerts',
        tileAlert(d.json.data.id, line.id, {
          thresholdType,
          ...(between ? { thresholdMax: 9 } : {}),
        }),
      );
      expect(res.status, thresholdType).toBe(200);
      conforms(facts.apiAlert, res.json.data, thresholdType);
      expect(res.json.data).toMatchObject({
        dashboardId: d.json.data.id,
        tileId: line.id,
        teamId: expect.any(String),
      });
      expect(res.json.data).not.toHaveProperty('dashboard');
    }
    const saved = await obs(sb, 'POST', '/alerts', {
      source: 'saved_search',
      savedSearchId: sb.info.savedSearchId,
      threshold: 1,
      thresholdType: 'above',
      interval: '1h',
      channels: [{ type: 'webhook', webhookId: sb.info.webhookId }],
    });
    expect(saved.status).toBe(200);
    conforms(facts.apiAlert, saved.json.data, 'saved search alert');

    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ source: 'search' }, /source: /],
      [{ thresholdType: 'between' }, /thresholdMax: required/],
      [
        { thresholdType: 'between', threshold: 5, thresholdMax: 4 },
        /thresholdMax: must be greater/,
      ],
      [
        { tileId: table.id },
        /alerts are supported on line, stacked_bar and number tiles only, not table/,
      ],
      [{ channel: undefined }, /channel: Required/],
    ];
    for (const [change, message] of refusals) {
      const res = await obs(sb, 'POST', '/alerts', tileAlert(d.json.data.id, line.id, change));
      expect(res.status, JSON.stringify(change)).toBe(400);
      conforms(facts.apiError, res.json, 'error');
      expect(res.json.message).toMatch(message);
    }
  });

  it('PUT needs the whole alert; dashboard PUTs delete alerts of removed and non-alertable tiles', async () => {
    const d = await obs(sb, 'POST', '/dashboards', {
      name: 'pruning',
      tiles: [seriesTile('a'), seriesTile('b')],
    });
    const [a, b] = d.json.data.tiles;
    const onA = (await obs(sb, 'POST', '/alerts', tileAlert(d.json.data.id, a.id))).json.data;
    const onB = (await obs(sb, 'POST', '/alerts', tileAlert(d.json.data.id, b.id))).json.data;

    const partial = await obs(sb, 'PUT', `/alerts/${onA.id}`, { channel: onA.channel });
    expect(partial.status).toBe(400);
    expect(partial.json.message).toMatch(/^Body validation failed: .*threshold: /);
    const whole = await obs(
      sb,
      'PUT',
      `/alerts/${onA.id}`,
      tileAlert(d.json.data.id, a.id, { threshold: 7 }),
    );
    expect(whole.status).toBe(200);
    conforms(facts.apiAlert, whole.json.data, 'updated alert');

    // Tile a becomes a table (cannot hold alerts), tile b is removed: both alerts go.
    const put = await obs(sb, 'PUT', `/dashboards/${d.json.data.id}`, {
      name: 'pruning',
      tiles: [{ ...configTile('a', 'table'), id: a.id }],
    });
    expect(put.status).toBe(200);
    expect(put.json.data.tiles[0].id).toBe(a.id);
    for (const alert of [onA, onB])
      expect((await obs(sb, 'GET', `/alerts/${alert.id}`)).status).toBe(404);
  });

  it('lists sources (unpaginated) and webhooks (paginated) with their real fields', async () => {
    const sources = await obs(sb, 'GET', '/sources');
    expect(Object.keys(sources.json)).toEqual(['data']);
    for (const s of sources.json.data)
      conforms(facts.source(facts.SOURCE_KINDS_API), s, `source ${s.name}`);
    expect(sources.json.data.map((s: any) => s.id)).toContain(sb.info.sourceId);
    const hooks = await obs(sb, 'GET', '/webhooks');
    conforms(facts.paginationMeta, hooks.json.meta, 'meta');
    for (const w of hooks.json.data)
      conforms(facts.webhook(facts.WEBHOOK_SERVICES_API), w, `webhook ${w.name}`);
    expect(hooks.json.data.map((w: any) => w.id)).toContain(sb.info.webhookId);
  });
});

describe('current profile: the management API', () => {
  it('serves dashboards, alerts (unpaginated, no channels), sources and webhooks in its envelope', async () => {
    const dashboards = await mgmtObs('GET', '/dashboards');
    conforms(facts.managementEnvelope(facts.dashboard.array()), dashboards.json, 'dashboards');
    const alerts = await mgmtObs('GET', '/alerts');
    conforms(facts.managementEnvelope(facts.managementAlert.array()), alerts.json, 'alerts');
    const sources = await mgmtObs('GET', '/sources');
    conforms(
      facts.managementEnvelope(facts.source(facts.SOURCE_KINDS_MANAGEMENT).array()),
      sources.json,
      'sources',
    );
    const webhooks = await mgmtObs('GET', '/webhooks');
    conforms(
      facts.managementEnvelope(facts.webhook(facts.WEBHOOK_SERVICES_MANAGEMENT).array()),
      webhooks.json,
      'webhooks',
    );
  });

  it('updates a dashboard with the Basic key alone (managed mode needs no bearer token)', async () => {
    const created = await mgmtObs('POST', '/dashboards', {
      name: 'managed',
      tiles: [seriesTile('a')],
    });
    conforms(facts.managementEnvelope(facts.dashboard), created.json, 'created');
    const { id, tiles } = created.json.result;
    const put = await mgmtObs('PUT', `/dashboards/${id}`, { name: 'managed 2', tiles });
    conforms(facts.managementEnvelope(facts.dashboard), put.json, 'updated');
    expect(put.json.result).toMatchObject({ name: 'managed 2', tiles });
    const alert = await mgmtObs('POST', '/alerts', tileAlert(id, tiles[0].id));
    conforms(facts.managementEnvelope(facts.managementAlert), alert.json, 'alert');
    const bad = await mgmtObs('PUT', `/dashboards/${id}`, {
      name: 'x',
      tiles: [{ name: 'x', x: 0, y: 0, w: 1, h: 1 }],
    });
    expect(bad.status).toBe(400);
    conforms(facts.managementError, bad.json, 'error');
    expect(bad.json.error).toBe(
      'BAD_REQUEST: Body validation failed: tiles.0: a tile needs exactly one of series or config',
    );
    const del = await mgmtObs('DELETE', `/dashboards/${id}`);
    conforms(facts.managementEmpty, del.json, 'deleted');
  });

  it('keys carry assignedRoles; assignedRoleIds decide what a new key may do', async () => {
    const list = await mgmt(sb, 'GET', '/keys');
    conforms(facts.managementEnvelope(facts.keyRecord.array()), list.json, 'keys');
    const roleIds = sb.info.roleIds!;
    const developer = await mgmt(sb, 'POST', '/keys', {
      name: 'dev',
      assignedRoleIds: [roleIds.Developer],
    });
    expect(developer.status).toBe(200);
    conforms(facts.keyRecord, developer.json.result.key, 'created key');
    expect(developer.json.result.key.assignedRoles).toEqual([
      { roleId: roleIds.Developer, roleName: 'Developer', roleType: 'system' },
    ]);
    // A stale deprecated `roles` does not grant admin: the assignment decides.
    const stale = await mgmt(sb, 'POST', '/keys', {
      name: 'stale',
      roles: ['admin'],
      assignedRoleIds: [roleIds['Pipe operators']],
    });
    const auth = basic(stale.json.result.keyId, stale.json.result.keySecret);
    expect((await mgmt(sb, 'GET', '/keys', undefined, auth)).status).toBe(403);
    expect(
      (await mgmt(sb, 'GET', `/services/${sb.info.serviceId}/pipes`, undefined, auth)).status,
    ).toBe(200);
    const unknownRole = await mgmt(sb, 'POST', '/keys', {
      name: 'x',
      assignedRoleIds: ['00000000-0000-4000-8000-000000000000'],
    });
    expect(unknownRole.status).toBe(400);
    conforms(facts.managementError, unknownRole.json, 'error');
  });

  it('activities: key events in the audit trail, between from_date and to_date, read by the client', async () => {
    const made = await mgmt(sb, 'POST', '/keys', {
      name: 'trail',
      assignedRoleIds: [sb.info.roleIds!.Developer],
    });
    await mgmt(sb, 'PATCH', `/keys/${made.json.result.key.id}`, {
      assignedRoleIds: [sb.info.roleIds!['Pipe operators']],
      expireAt: '2030-01-01T00:00:00Z',
      ipAccessList: [{ source: '10.0.0.0/8' }],
    });
    const to = new Date(sb.clock.now() + 60_000).toISOString();
    const res = await mgmt(sb, 'GET', `/activities?from_date=2000-01-01T00:00:00Z&to_date=${to}`);
    conforms(facts.managementEnvelope(facts.activity.array()), res.json, 'activities');
    const types = (res.json.result as { targetKeyId: string; keyUpdateType?: string }[])
      .filter((a) => a.targetKeyId === made.json.result.key.id)
      .map((a) => a.keyUpdateType);
    expect(types).toEqual([
      'created',
      'roles-v2-changed',
      'date-changed',
      'ip-access-list-changed',
    ]);
    const client = createManagementClient({
      baseUrl: sb.info.apiUrl,
      credentials: staticCredentials('seed', sb.info, managementAuth),
      rateLimit: false,
    });
    try {
      const read = await client.listActivities({ from: '2000-01-01T00:00:00Z', to });
      expect(read.length).toBe(res.json.result.length);
      expect(await client.listActivities({ from: to, to })).toEqual([]);
    } finally {
      client.close();
    }
  });

  it('an idle service answers 424 on pipe calls until it runs; the first service stays active', async () => {
    const idle = sb.info.idleServiceId!;
    expect(idle).not.toBe(sb.info.serviceId);
    expect(sb.info.serviceIds).toContain(idle);
    const res = await mgmt(sb, 'GET', `/services/${idle}/pipes`);
    expect(res.status).toBe(424);
    conforms(facts.managementError, res.json, 'error');
    expect(res.json.error).toMatch(/^FAILED_DEPENDENCY: .* Current state: idle$/);
    expect((await mgmt(sb, 'GET', `/services/${sb.info.serviceId}/pipes`)).status).toBe(200);
    await admin(sb, 'PUT', `/services/${idle}/state`, { state: 'running' });
    expect((await mgmt(sb, 'GET', `/services/${idle}/pipes`)).status).toBe(200);
    await admin(sb, 'PUT', `/services/${idle}/state`, { state: 'idle' });
    expect((await mgmt(sb, 'GET', `/services/${idle}/pipes`)).status).toBe(424);
  });
});
