/**
 * The operations of the August 2026 contract on both backends, against a canned server: the exact
 * requests (method, path, body), the typed answers, and what never leaves the process.
 */
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
  WebhookInUseError,
  type ObservabilityBackend,
} from '../../../lib/api';
import { createLogger } from '../../../lib/log';
import { redactText } from '../../../lib/redact';
import { caught } from '../../support/caught';
import { cannedServerPerTest, fail, ok, type CannedServer } from './canned-server';
import {
  fakeClock,
  managementCredentials,
  observabilityCredentials,
  ORG,
  SERVICE,
} from './fixtures';

let server: CannedServer;
const closers = cannedServerPerTest((s) => (server = s));

const M = `/mgmt/v1/organizations/${ORG}/services/${SERVICE}/observability`;
const WEBHOOK = '65f1c2d3e4f5a6b7c8d9e0a1';
const SEARCH = '65f1c2d3e4f5a6b7c8d9e0b2';
const SOURCE = '65f1c2d3e4f5a6b7c8d9e0c3';
const at = '2026-08-01T00:00:00.000Z';
const hookRecord = {
  id: WEBHOOK,
  name: 'ops',
  service: 'generic',
  url: 'https://h.example/x',
  createdAt: at,
  updatedAt: at,
};
const searchRecord = {
  id: SEARCH,
  name: 'Errors',
  sourceId: SOURCE,
  where: 'level:error',
  whereLanguage: 'lucene',
  tags: [],
  filters: [{ type: 'sql_ast', condition: 'x' }],
};
const sourceRecord = {
  id: SOURCE,
  name: 'Logs',
  kind: 'log',
  connection: 'c1',
  from: { databaseName: 'default', tableName: 'otel_logs' },
};
const data = (value?: unknown) => ({
  status: 200,
  body: value === undefined ? {} : { data: value },
});

function backends(logger?: ReturnType<typeof createLogger>) {
  const management = createManagementClient({
    baseUrl: `${server.url}/mgmt`,
    credentials: managementCredentials(),
    rateLimit: false,
    clock: fakeClock(),
    logger,
  });
  const observability = createObservabilityClient({
    baseUrl: `${server.url}/obs`,
    credentials: observabilityCredentials(),
    rateLimit: false,
    clock: fakeClock(),
    logger,
  });
  closers.push(management, observability);
  return {
    managed: createObservabilityBackend({
      mode: 'managed',
      management,
      serviceId: SERVICE,
    }) as Required<ObservabilityBackend>,
    open: createObservabilityBackend({
      mode: 'open-source',
      observability,
    }) as Required<ObservabilityBackend>,
  };
}

const requests = () => server.requests.map((r) => `${r.method} ${r.url}`);
const bodies = () =>
  server.requests.map((r) => (r.body ? (JSON.parse(r.body) as unknown) : undefined));

const webhookBody = {
  name: 'ops',
  service: 'generic' as const,
  url: 'https://h.example/x',
  body: '{"text":"{{title}}"}',
  headers: { Authorization: 'Bearer hook-header-secret-1234' },
  queryParams: { token: 'hook-query-secret-5678' },
};

async function crud(backend: Required<ObservabilityBackend>) {
  await backend.listWebhooks();
  await backend.createWebhook(webhookBody);
  await backend.updateWebhook(WEBHOOK, { ...webhookBody, headers: {} });
  await backend.deleteWebhook(WEBHOOK);
  await backend.listSavedSearches();
  await backend.getSavedSearch(SEARCH);
  await backend.createSavedSearch({
    name: 'Errors',
    sourceId: SOURCE,
    filters: [{ type: 'sql', condition: "ServiceName IN ('api')" }],
  });
  await backend.updateSavedSearch(SEARCH, { name: 'Errors 2', sourceId: SOURCE });
  await backend.deleteSavedSearch(SEARCH);
  await backend.listSources();
  await backend.getSource(SOURCE);
  await backend.createSource({
    name: 'P',
    kind: 'promql',
    connection: 'c1',
    from: { databaseName: 'default' },
  });
  await backend.updateSource(SOURCE, {
    name: 'Logs',
    kind: 'log',
    connection: 'c1',
    from: { databaseName: 'd', tableName: 't' },
  });
  await backend.deleteSource(SOURCE);
}
const answers = [
  [hookRecord],
  hookRecord,
  hookRecord,
  undefined,
  [searchRecord],
  searchRecord,
  searchRecord,
  searchRecord,
  undefined,
  [sourceRecord],
  sourceRecord,
  sourceRecord,
  sourceRecord,
  undefined,
];

describe('webhooks, saved searches and sources', () => {
  it('managed: every operation through the management API of the service, with the Basic key', async () => {
    const { managed } = backends();
    server.enqueue(...answers.map((a) => ok(a)));
    await crud(managed);
    expect(requests()).toEqual([
      `GET ${M}/webhooks`,
      `POST ${M}/webhooks`,
      `PUT ${M}/webhooks/${WEBHOOK}`,
      `DELETE ${M}/webhooks/${WEBHOOK}`,
      `GET ${M}/saved-searches`,
      `GET ${M}/saved-searches/${SEARCH}`,
      `POST ${M}/saved-searches`,
      `PUT ${M}/saved-searches/${SEARCH}`,
      `DELETE ${M}/saved-searches/${SEARCH}`,
      `GET ${M}/sources`,
      `GET ${M}/sources/${SOURCE}`,
      `POST ${M}/sources`,
      `PUT ${M}/sources/${SOURCE}`,
      `DELETE ${M}/sources/${SOURCE}`,
    ]);
    expect(server.requests.every((r) => r.headers.authorization?.startsWith('Basic '))).toBe(true);
    // Write-only fields are sent as given; `{}` clears headers on an update.
    expect(bodies()[1]).toEqual(webhookBody);
    expect(bodies()[2]).toMatchObject({ headers: {}, queryParams: webhookBody.queryParams });
    expect(bodies()[6]).toEqual({
      name: 'Errors',
      sourceId: SOURCE,
      filters: [{ type: 'sql', condition: "ServiceName IN ('api')" }],
    });
  });

  it('open-source: the same operations on /api/v2 with the bearer token; lists paged with limit/offset', async () => {
    const { open } = backends();
    server.enqueue(
      ...answers.map((a, i) =>
        i === 0 || i === 4
          ? { status: 200, body: { data: a, meta: { total: 1, limit: 1000, offset: 0 } } }
          : data(a),
      ),
    );
    await crud(open);
    expect(requests()).toEqual([
      'GET /obs/api/v2/webhooks?limit=1000&offset=0',
      'POST /obs/api/v2/webhooks',
      `PUT /obs/api/v2/webhooks/${WEBHOOK}`,
      `DELETE /obs/api/v2/webhooks/${WEBHOOK}`,
      'GET /obs/api/v2/saved-searches?limit=1000&offset=0',
      `GET /obs/api/v2/saved-searches/${SEARCH}`,
      'POST /obs/api/v2/saved-searches',
      `PUT /obs/api/v2/saved-searches/${SEARCH}`,
      `DELETE /obs/api/v2/saved-searches/${SEARCH}`,
      'GET /obs/api/v2/sources',
      `GET /obs/api/v2/sources/${SOURCE}`,
      'POST /obs/api/v2/sources',
      `PUT /obs/api/v2/sources/${SOURCE}`,
      `DELETE /obs/api/v2/sources/${SOURCE}`,
    ]);
    expect(server.requests.every((r) => r.headers.authorization?.startsWith('Bearer '))).toBe(true);
  });

  it('reads tolerantly: unknown fields pass, stored lucene/sql_ast filters and slack_api webhooks read', async () => {
    const { managed } = backends();
    server.enqueue(
      ok([{ ...hookRecord, service: 'pagerduty_api', somethingNew: 1, url: null }]),
      ok({
        data: [{ ...searchRecord, filters: [{ type: 'lucene', condition: 'a:b' }, null] }],
        meta: { total: 1 },
      }),
    );
    expect(await managed.listWebhooks()).toMatchObject([
      { id: WEBHOOK, service: 'pagerduty_api', somethingNew: 1 },
    ]);
    const [search] = await managed.listSavedSearches();
    expect(search).toMatchObject({ id: SEARCH, name: 'Errors' });
    expect(search?.filters).toBeUndefined(); // an unreadable list of filters reads as absent
  });

  it('refuses bad bodies before sending, naming each field', async () => {
    const { managed } = backends();
    const slack = await caught(
      managed.createWebhook({
        name: 's',
        service: 'slack',
        url: 'https://hooks.example/T0/B0/x',
        body: '{}',
        headers: { a: 'b' },
      }),
    );
    expect(slack).toMatchObject({
      name: 'ValidationError',
      issues: [
        'body: not supported for the slack webhook service',
        'headers: not supported for the slack webhook service',
      ],
    });
    const filter = await caught(
      managed.createSavedSearch({
        name: 'x',
        sourceId: SOURCE,
        filters: [{ condition: "ServiceName = 'api'" }],
      }),
    );
    expect(filter).toMatchObject({
      issues: ['filters[0].condition: must have the form <column> IN (...)'],
    });
    const trace = await caught(
      managed.createSource({
        name: 'T',
        kind: 'trace',
        connection: 'c',
        from: { databaseName: 'd', tableName: 't' },
      }),
    );
    expect(trace).toMatchObject({
      issues: ['defaultTableSelectExpression: required for a trace source'],
    });
    expect(server.requests).toHaveLength(0);
  });

  it('a 409 on deleting a webhook is a WebhookInUseError naming it; other failures stay as they were', async () => {
    const { managed, open } = backends();
    server.enqueue(
      fail(409, 'CONFLICT: webhook is used by 2 alerts'),
      { status: 409, body: { message: 'Webhook is in use' } },
      fail(404, 'NOT_FOUND: webhook not found'),
    );
    const inUse = await caught(managed.deleteWebhook(WEBHOOK));
    expect(inUse).toBeInstanceOf(WebhookInUseError);
    expect(inUse).toMatchObject({
      webhookId: WEBHOOK,
      status: 409,
      code: 'CONFLICT',
      retryable: false,
    });
    expect(inUse.message).toBe(
      `webhook ${WEBHOOK} is still used by an alert: DELETE ${M.replace('/mgmt', '')}/webhooks/${WEBHOOK} answered 409 (webhook is used by 2 alerts); repoint or delete its alerts first`,
    );
    expect(await caught(open.deleteWebhook(WEBHOOK))).toBeInstanceOf(WebhookInUseError);
    const missing = await caught(managed.deleteWebhook(WEBHOOK));
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).not.toBeInstanceOf(WebhookInUseError);
    expect(server.requests).toHaveLength(3); // a 409 is never retried
  });

  it('write-only headers, query parameters and the URL never reach a log line, and errors echoing them are masked', async () => {
    const lines: string[] = [];
    const { managed } = backends(
      createLogger({ level: 'debug', sink: (line) => lines.push(line) }),
    );
    const url = 'https://hooks.example/services/T0001/B0002/hookurlsecret9999';
    server.enqueue(
      ok(hookRecord),
      fail(
        400,
        `BAD_REQUEST: bad header Bearer hook-header-secret-1234 for ${url} token hook-query-secret-5678`,
      ),
    );
    await managed.createWebhook({ ...webhookBody, url });
    const error = await caught(managed.updateWebhook(WEBHOOK, { ...webhookBody, url }));
    expect(lines.length).toBeGreaterThan(0);
    for (const text of [...lines, error.message, JSON.stringify(error)]) {
      for (const secret of ['hook-header-secret-1234', 'hook-query-secret-5678', url])
        expect(text).not.toContain(secret);
    }
    expect(redactText(`POST to ${url}`)).toBe('POST to [REDACTED]');
  });
});

describe('dashboard dry-run validate', () => {
  const body = {
    name: 'Pipes',
    tiles: [
      {
        name: 't',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: { displayType: 'bar', sourceId: SOURCE, select: [{ aggFn: 'count' }], limit: 10 },
      },
    ],
  };

  it('managed: POST .../dashboards/validate; valid, invalid with its issues', async () => {
    const { managed } = backends();
    server.enqueue(
      ok({ valid: true, errors: [], normalized: { name: 'Pipes', tiles: [] } }),
      ok({
        valid: false,
        errors: [
          { path: 'tiles.0.config.limit', message: 'Number must be greater than 0' },
          { path: '', message: 'Could not find the following source IDs: x' },
        ],
        normalized: null,
      }),
    );
    expect(await managed.validateDashboard(body)).toEqual({
      outcome: 'valid',
      normalized: { name: 'Pipes', tiles: [] },
    });
    expect(await managed.validateDashboard(body)).toEqual({
      outcome: 'invalid',
      errors: [
        { path: 'tiles.0.config.limit', message: 'Number must be greater than 0' },
        { path: '', message: 'Could not find the following source IDs: x' },
      ],
      normalized: null,
    });
    expect(requests()).toEqual([`POST ${M}/dashboards/validate`, `POST ${M}/dashboards/validate`]);
    expect(bodies()[0]).toEqual(body);
  });

  it('an answer without `valid` is "unavailable", never "invalid"; so is a route the service does not serve', async () => {
    const { managed, open } = backends();
    server.enqueue(
      ok({ errors: [] }),
      ok(),
      {
        status: 404,
        headers: { 'content-type': 'text/html' },
        body: '<pre>Cannot POST /v1/.../validate</pre>',
      },
      { status: 200, body: { valid: false, errors: [{ path: 'name', message: 'Required' }] } },
      data({ valid: true, errors: [], normalized: null }),
      data({ message: 'validation is warming up' }),
    );
    expect(await managed.validateDashboard(body)).toMatchObject({ outcome: 'unavailable' });
    expect(await managed.validateDashboard(body)).toMatchObject({ outcome: 'unavailable' });
    expect(await managed.validateDashboard(body)).toEqual({
      outcome: 'unavailable',
      reason:
        'the service does not serve POST /v1/organizations/{organizationId}/services/{serviceId}/observability/dashboards/validate',
    });
    // /api/v2: the answer bare or in `data`.
    expect(await open.validateDashboard(body)).toMatchObject({
      outcome: 'invalid',
      errors: [{ path: 'name', message: 'Required' }],
    });
    expect(await open.validateDashboard(body)).toMatchObject({ outcome: 'valid' });
    expect(await open.validateDashboard(body)).toMatchObject({ outcome: 'unavailable' });
    expect(requests().slice(3)).toEqual(Array(3).fill('POST /obs/api/v2/dashboards/validate'));
  });

  it('any other failure is an error; a body without name or tiles is refused before sending', async () => {
    const { managed } = backends();
    server.enqueue(
      fail(400, 'BAD_REQUEST: Body validation failed: tiles: Required'),
      { status: 500, body: { status: 500, error: 'INTERNAL: x', requestId: 'r' } },
      ok({ valid: true, errors: [] }),
    );
    expect(await caught(managed.validateDashboard(body))).toMatchObject({ status: 400 });
    // A dry run changes nothing, so a 500 is retried like a GET.
    expect(await managed.validateDashboard(body)).toMatchObject({ outcome: 'valid' });
    expect(await caught(managed.validateDashboard({ name: 'x' } as never))).toMatchObject({
      name: 'ValidationError',
      issues: ['tiles: Invalid input: expected array, received undefined'],
    });
    expect(server.requests).toHaveLength(3);
  });
});

describe('lists described as paginated', () => {
  const alert = (i: number) => ({
    id: `a${i}`,
    name: `alert ${i}`,
    state: i % 2 ? 'PENDING' : 'OK',
  });
  const many = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => alert(from + i));

  it('management: exactly 1000 items may be cut short, so the next page is asked with limit/offset', async () => {
    const { managed } = backends();
    server.enqueue(ok(many(0, 1000)), ok(many(1000, 3)));
    const alerts = await managed.listAlerts();
    expect(alerts).toHaveLength(1003);
    expect(requests()).toEqual([`GET ${M}/alerts`, `GET ${M}/alerts?limit=1000&offset=1000`]);
  });

  it('management: a { data, meta } answer is read too, paging to meta.total', async () => {
    const { managed } = backends();
    server.enqueue(
      ok({ data: many(0, 2), meta: { total: 3, limit: 2, offset: 0 } }),
      ok({ data: many(2, 1), meta: { total: 3, limit: 2, offset: 2 } }),
    );
    expect((await managed.listSavedSearches()).map((s) => s.id)).toEqual(['a0', 'a1', 'a2']);
    expect(requests()[1]).toBe(`GET ${M}/saved-searches?limit=1000&offset=2`);
  });

  it('a server that ignores offset (the same full page again) ends after one repeat; 999 items end at once', async () => {
    const { managed, open } = backends();
    server.enqueue(
      ok(many(0, 1000)),
      ok(many(0, 1000)),
      data(many(0, 999)),
      data(many(0, 1000)),
      data([]),
    );
    expect(await managed.listWebhooks()).toHaveLength(1000);
    expect(await open.listAlerts()).toHaveLength(999);
    // /api/v2 without meta: a full page may be cut short too.
    expect(await open.listAlerts()).toHaveLength(1000);
    expect(server.requests).toHaveLength(5);
  });
});
