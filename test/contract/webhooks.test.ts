/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
/**
 * Webhook CRUD of the current profile on both surfaces (API-FACTS, August 2026): the answer's
 * fields (never headers or queryParams), the PUT rules for write-only fields, slack's refusals,
 * and the 409 the management API answers for a webhook an alert uses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox, WebhookRow } from '../../sandbox/index';
import { startTestSandbox } from '../support/sandbox';
import * as facts from './api-facts';
import { conforms, surfaces } from './support';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ profile: 'current' });
});
afterAll(() => sb.close());

const stored = (id: string): WebhookRow | undefined =>
  sb.store.state.webhooks.find((w) => w.id === id);
const generic = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  service: 'generic',
  url: 'https://hooks.example/in/abc',
  description: 'pages the on-call',
  body: '{"text":"{{title}}"}',
  headers: { Authorization: 'Bearer hook-secret' },
  queryParams: { key: 'query-secret' },
  ...extra,
});

describe.each(surfaces(() => sb))('webhooks on $name', (s) => {
  const services =
    s.name === 'api' ? facts.WEBHOOK_SERVICES_API : facts.WEBHOOK_SERVICES_MANAGEMENT;
  const shape = facts.webhook(services);

  it('lists (paged on /api/v2, a plain array on the management API) and creates; headers and queryParams never come back', async () => {
    const list = await s.call('GET', '/webhooks');
    expect(list.status).toBe(200);
    if (s.name === 'api') conforms(facts.paginationMeta, list.json.meta, 'meta');
    else expect(Array.isArray(list.json.result)).toBe(true);
    const items = s.name === 'api' ? list.json.data : list.json.result;
    for (const w of items) conforms(shape, w, `webhook ${w.name}`);
    expect(items.map((w: { id: string }) => w.id)).toContain(sb.info.webhookId);

    const created = await s.call('POST', '/webhooks', generic(`${s.name} ops`));
    expect(created.status).toBe(200);
    conforms(shape, s.payload(created), 'created');
    for (const field of facts.WEBHOOK_WRITE_ONLY)
      expect(s.payload(created)).not.toHaveProperty(field);
    expect(stored(s.payload(created).id)).toMatchObject({
      headers: { Authorization: 'Bearer hook-secret' },
    });
    expect(created.text).not.toContain('hook-secret');
  });

  it('PUT: omitted headers kept, {} clears, a new url clears omitted ones; omitted description and body cleared', async () => {
    const id = s.payload(await s.call('POST', '/webhooks', generic(`${s.name} put`))).id;
    const {
      headers: _h,
      queryParams: _q,
      description: _d,
      body: _b,
      ...bare
    } = generic(`${s.name} put`);
    const kept = await s.call('PUT', `/webhooks/${id}`, bare);
    expect(kept.status).toBe(200);
    conforms(shape, s.payload(kept), 'updated');
    expect(s.payload(kept)).not.toHaveProperty('description');
    expect(s.payload(kept)).not.toHaveProperty('body');
    expect(stored(id)).toMatchObject({
      headers: { Authorization: 'Bearer hook-secret' },
      queryParams: { key: 'query-secret' },
    });

    await s.call('PUT', `/webhooks/${id}`, { ...bare, headers: {} });
    expect(stored(id)?.headers).toBeUndefined();
    expect(stored(id)?.queryParams).toEqual({ key: 'query-secret' });

    await s.call('PUT', `/webhooks/${id}`, { ...bare, url: 'https://hooks.example/in/moved' });
    expect(stored(id)?.queryParams).toBeUndefined();
  });

  it('refuses what the service refuses: slack with body/headers/queryParams, a duplicate name, a bad url; unknown ids', async () => {
    const slack = await s.call('POST', '/webhooks', {
      name: 'chat',
      service: 'slack',
      url: 'https://hooks.slack.example/T0/B0/x',
      body: '{}',
      queryParams: { a: 'b' },
    });
    expect(slack.status).toBe(400);
    expect(s.message(slack)).toBe(
      'Body validation failed: queryParams: queryParams is not supported for the slack webhook service; body: body is not supported for the slack webhook service',
    );
    conforms(s.name === 'api' ? facts.apiError : facts.managementError, slack.json, 'error');
    await s.call('POST', '/webhooks', generic(`${s.name} twice`));
    const twice = await s.call('POST', '/webhooks', generic(`${s.name} twice`));
    expect([twice.status, s.message(twice)]).toEqual([
      400,
      'A webhook with this service and name already exists',
    ]);
    const url = await s.call('POST', '/webhooks', generic('bad url', { url: 'not a url' }));
    expect([url.status, s.message(url)]).toEqual([400, 'Body validation failed: url: Invalid URL']);
    const absent = '0123456789abcdef01234567';
    expect((await s.call('PUT', `/webhooks/${absent}`, generic('x'))).status).toBe(404);
    expect((await s.call('DELETE', `/webhooks/${absent}`)).status).toBe(404);
    expect((await s.call('DELETE', '/webhooks/not-an-id')).status).toBe(400);
    // There is no GET by id.
    expect((await s.call('GET', `/webhooks/${sb.info.webhookId}`)).status).toBe(404);
  });

  it('deleting a webhook an alert uses: 409 on the management API; /api/v2 deletes it (router code)', async () => {
    const id = s.payload(await s.call('POST', '/webhooks', generic(`${s.name} used`))).id;
    const dashboards = await s.call('GET', '/dashboards');
    const [d] = s.payload(dashboards);
    const alert = await s.call('POST', '/alerts', {
      source: 'tile',
      dashboardId: d.id,
      tileId: d.tiles[0].id,
      threshold: 1,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhookId: id },
    });
    expect(alert.status).toBe(200);
    const del = await s.call('DELETE', `/webhooks/${id}`);
    if (s.name === 'management') {
      expect(del.status).toBe(409);
      conforms(facts.managementError, del.json, 'error');
      expect(del.json.error).toBe(
        `CONFLICT: webhook ${id} is used by 1 alert(s): ${s.payload(alert).id}`,
      );
      expect(stored(id)).toBeDefined();
      await s.call('DELETE', `/alerts/${s.payload(alert).id}`);
      expect((await s.call('DELETE', `/webhooks/${id}`)).status).toBe(200);
    } else {
      expect([del.status, del.json]).toEqual([200, {}]);
    }
    expect(stored(id)).toBeUndefined();
  });
});
