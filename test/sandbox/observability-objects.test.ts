/**
 * The client's August 2026 operations against the sandbox's current profile over real HTTP, on
 * both backends: what one writes, the other reads; the typed outcomes (validation, webhook in use)
 * and the "exactly 1000 may be cut short" rule of the lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createObservabilityBackend,
  WebhookInUseError,
  type ObservabilityBackend,
} from '../../lib/api';
import type { Sandbox } from '../../sandbox/index';
import { caught } from '../support/caught';
import { startTestSandbox } from '../support/sandbox';
import { admin, mgmt } from '../support/sandbox-http';
import { sandboxClients, type SandboxClients } from '../support/sandbox-clients';

let sb: Sandbox;
let clients: SandboxClients;
let backends: [string, Required<ObservabilityBackend>][];
beforeAll(async () => {
  sb = await startTestSandbox({ profile: 'current' });
  clients = sandboxClients(sb.info, { label: 'objects' });
  backends = [
    ['managed', clients.backend as Required<ObservabilityBackend>],
    [
      'open-source',
      createObservabilityBackend({
        mode: 'open-source',
        observability: clients.observability,
      }) as Required<ObservabilityBackend>,
    ],
  ];
});
afterAll(async () => {
  clients.close();
  await sb.close();
});

const tiles = () => [
  {
    name: 'errors',
    x: 0,
    y: 0,
    w: 6,
    h: 3,
    config: {
      displayType: 'number',
      sourceId: sb.info.sourceId,
      select: [{ aggFn: 'count' }],
      colorRules: [{ operator: 'gt', value: 5, color: 'chart-red' }],
    },
  },
];

describe.each([0, 1])('backend %#', (index) => {
  const backend = () => backends[index][1];

  it('validate: valid, invalid with the service path, nothing written', async () => {
    const before = sb.store.state.dashboards.length;
    expect(await backend().validateDashboard({ name: 'v', tiles: tiles() })).toMatchObject({
      outcome: 'valid',
      normalized: { name: 'v' },
    });
    const bad = tiles();
    bad[0].config.select = [{ aggFn: 'count' }, { aggFn: 'count' }];
    expect(await backend().validateDashboard({ name: 'v', tiles: bad })).toEqual({
      outcome: 'invalid',
      errors: [
        {
          path: 'tiles.0.config.select',
          message: 'Too big: expected array to have exactly 1 items',
        },
      ],
      normalized: null,
    });
    expect(sb.store.state.dashboards.length).toBe(before);
  });

  it('a webhook, a saved search on a new source and an alert on the search: written, read, deleted in order', async () => {
    const b = backend();
    const hook = await b.createWebhook({
      name: `hook ${index}`,
      service: 'generic',
      url: 'https://hooks.example/in/1',
      headers: { 'X-Token': 'objects-header-secret' },
    });
    expect(hook).not.toHaveProperty('headers');
    const source = await b.createSource({
      name: `logs ${index}`,
      kind: 'log',
      connection: String(sb.store.state.sources[0]?.connection),
      from: { databaseName: 'default', tableName: 'otel_logs' },
      timestampValueExpression: 'Timestamp',
      defaultTableSelectExpression: 'Timestamp, Body',
    });
    const search = await b.createSavedSearch({
      name: `errors ${index}`,
      sourceId: source.id!,
      where: 'level:error',
      filters: [{ condition: "ServiceName IN ('api')" }],
    });
    const alert = await b.createAlert({
      name: 'burst',
      source: 'saved_search',
      savedSearchId: search.id,
      threshold: 1,
      thresholdType: 'above',
      interval: '5m',
      numConsecutiveWindows: 2,
      channel: { type: 'webhook', webhookId: hook.id },
    });
    expect(alert).toMatchObject({ numConsecutiveWindows: 2, savedSearchId: search.id });
    expect((await b.listSavedSearches()).map((s) => s.id)).toContain(search.id);
    expect(await b.getSource(source.id!)).toMatchObject({ kind: 'log' });

    if (index === 0) {
      // The management API refuses to delete a webhook an alert uses.
      const inUse = await caught(b.deleteWebhook(hook.id));
      expect(inUse).toBeInstanceOf(WebhookInUseError);
      expect(inUse).toMatchObject({ webhookId: hook.id });
    }
    await b.deleteSavedSearch(search.id);
    expect((await b.listAlerts()).map((a) => a.id)).not.toContain(alert.id);
    await b.deleteWebhook(hook.id);
    await b.deleteSource(source.id!);
    expect((await b.listWebhooks()).map((w) => w.id)).not.toContain(hook.id);
  });
});

describe('the sandbox keeps write-only fields to itself', () => {
  it('GET /_sandbox/state names a webhook header but never shows its value', async () => {
    // Raw HTTP: the client would register the value as a secret, and this process's redaction
    // would then mask it whatever the sandbox did.
    const secret = 'state-view-header-secret-77';
    const created = await mgmt(
      sb,
      'POST',
      `/services/${sb.info.serviceId}/observability/webhooks`,
      {
        name: 'state view',
        service: 'generic',
        url: 'https://hooks.example/in/state',
        headers: { 'X-Api-Key': secret },
        queryParams: { sig: secret },
      },
    );
    expect(created.status).toBe(200);
    const res = await admin(sb, 'GET', '/state');
    expect(res.text).not.toContain(secret);
    const row = (res.json as { webhooks: { name: string }[] }).webhooks.find(
      (w) => w.name === 'state view',
    );
    expect(row).toMatchObject({
      headers: { 'X-Api-Key': '[REDACTED]' },
      queryParams: { sig: '[REDACTED]' },
    });
  });
});

describe('lists of exactly 1000 and more', () => {
  it('both backends read 1001 webhooks: the page of 1000 may be cut short, so the next is asked', async () => {
    const at = new Date().toISOString();
    const extra = Array.from(
      {
        length:
          1001 - sb.store.state.webhooks.filter((w) => w.serviceId === sb.info.serviceId).length,
      },
      (_, i) => ({
        id: (0xabc000000000 + i).toString(16).padStart(24, '0'),
        serviceId: sb.info.serviceId,
        name: `bulk ${i}`,
        url: 'https://hooks.example/bulk',
        service: 'generic',
        createdAt: at,
        updatedAt: at,
      }),
    );
    sb.store.state.webhooks.push(...extra);
    sb.requestLog.clear();
    for (const [, b] of backends) expect(await b.listWebhooks()).toHaveLength(1001);
    // Two pages each (the request log keeps paths without their query).
    const paths = sb.requestLog.entries().map((e) => `${e.method} ${e.path}`);
    expect(paths.filter((p) => /^GET \/v1\/.*\/observability\/webhooks$/.test(p))).toHaveLength(2);
    expect(paths.filter((p) => p === 'GET /api/v2/webhooks')).toHaveLength(2);
    expect(paths).toHaveLength(4);
  });
});
