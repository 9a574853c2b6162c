import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
  UnexpectedResponseError,
} from '../../../lib/api';
import { ConfigError } from '../../../lib/errors';
import { cannedServerPerTest, ok, type CannedServer } from './canned-server';
import {
  alertBody,
  fakeClock,
  managementCredentials,
  observabilityCredentials,
  ORG,
  SERVICE,
} from './fixtures';

let server: CannedServer;
const closers = cannedServerPerTest((s) => (server = s));

const dash = {
  id: 'd1',
  name: 'Pipes',
  tiles: [{ id: 't1', name: 'rows', x: 0, y: 0, w: 6, h: 3 }],
  tags: ['ops'],
};
const alertRecord = { id: 'a1', name: 'lag', state: 'OK' };
const data = (value?: unknown) => ({
  status: 200,
  body: value === undefined ? {} : { data: value },
});

function obsClient(prefix = '/obs') {
  const credentials = observabilityCredentials();
  const c = createObservabilityClient({
    baseUrl: `${server.url}${prefix}`,
    credentials,
    rateLimit: false,
    clock: fakeClock(),
    random: () => 0,
  });
  closers.push(c);
  return { c, credentials };
}

describe('observability client', () => {
  it('unwraps data, sends the bearer token and hits /api/v2 paths', async () => {
    const { c, credentials } = obsClient();
    server.enqueue(
      data([dash]),
      data(dash),
      data(dash),
      data(dash),
      { status: 204 },
      data([alertRecord]),
      data(alertRecord),
      data(alertRecord),
      data(alertRecord),
      data(),
    );
    expect(await c.listDashboards()).toEqual([dash]);
    await c.createDashboard({ name: 'Pipes', tiles: [{ name: 'rows', x: 0, y: 0, w: 6, h: 3 }] });
    await c.getDashboard('d1');
    const updated = await c.updateDashboard('d1', {
      name: 'Pipes',
      tiles: [{ id: 't1', name: 'rows', x: 0, y: 0, w: 6, h: 3 }],
    });
    expect(updated.tiles[0]?.id).toBe('t1');
    await c.deleteDashboard('d1');
    await c.listAlerts();
    await c.createAlert(alertBody);
    expect(await c.getAlert('a1')).toMatchObject({ state: 'OK' });
    await c.updateAlert('a1', { threshold: 9 });
    await c.deleteAlert('a1');
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /obs/api/v2/dashboards',
      'POST /obs/api/v2/dashboards',
      'GET /obs/api/v2/dashboards/d1',
      'PUT /obs/api/v2/dashboards/d1',
      'DELETE /obs/api/v2/dashboards/d1',
      'GET /obs/api/v2/alerts?limit=1000&offset=0',
      'POST /obs/api/v2/alerts',
      'GET /obs/api/v2/alerts/a1',
      'PUT /obs/api/v2/alerts/a1',
      'DELETE /obs/api/v2/alerts/a1',
    ]);
    const token = (await credentials.get()).token;
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${token}`)).toBe(true);
    expect(JSON.parse(server.requests[8]?.body ?? '')).toEqual({ threshold: 9 });
  });

  it('reads `{message}` error bodies and a plain-text 401', async () => {
    const { c, credentials } = obsClient();
    server.enqueue(
      { status: 404, body: { message: 'Alert not found' } },
      { status: 401, headers: { 'content-type': 'text/plain' }, body: 'Unauthorized' },
      { status: 401, headers: { 'content-type': 'text/plain' }, body: 'Unauthorized' },
    );
    const notFound = await c.getAlert('nope').catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(ApiError);
    expect(notFound).toMatchObject({ status: 404, code: undefined, apiMessage: 'Alert not found' });
    const unauthorized = await c.listAlerts().catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(UnexpectedResponseError);
    expect(unauthorized).toMatchObject({ status: 401, snippet: 'Unauthorized' });
    expect(credentials.refreshes).toBe(1);
  });

  it('does not retry a POST create alert after a 500', async () => {
    const { c } = obsClient();
    server.enqueue({ status: 500, body: { message: 'boom' } }, data(alertRecord));
    await expect(c.createAlert(alertBody)).rejects.toMatchObject({ status: 500 });
    expect(server.requests).toHaveLength(1);
  });

  it('validates bodies before sending (tile source needs a tileId)', async () => {
    const { c } = obsClient();
    const { tileId: _omit, ...withoutTile } = alertBody;
    await expect(c.createAlert(withoutTile)).rejects.toMatchObject({
      name: 'ValidationError',
      issues: ['tileId: required when source is tile'],
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('observability backend', () => {
  function both() {
    const obs = obsClient().c;
    const management = createManagementClient({
      baseUrl: `${server.url}/mgmt`,
      credentials: managementCredentials(),
      rateLimit: false,
      clock: fakeClock(),
    });
    closers.push(management);
    return { obs, management };
  }

  async function exercise(
    backend: ReturnType<typeof createObservabilityBackend>,
    envelope: (v?: unknown) => object,
  ) {
    server.enqueue(
      ...([
        [dash],
        dash,
        dash,
        dash,
        undefined,
        [alertRecord],
        alertRecord,
        alertRecord,
        alertRecord,
        undefined,
      ].map((v) => envelope(v)) as []),
    );
    await backend.listDashboards();
    await backend.getDashboard('d1');
    await backend.createDashboard({ name: 'Pipes' });
    await backend.updateDashboard('d1', { name: 'Pipes' });
    await backend.deleteDashboard('d1');
    await backend.listAlerts();
    await backend.getAlert('a1');
    await backend.createAlert(alertBody);
    await backend.updateAlert('a1', { threshold: 1 });
    await backend.deleteAlert('a1');
    return server.requests.map((r) => `${r.method} ${r.url}`);
  }

  it('managed: everything via the management API (updates by its PUT), no bearer token needed', async () => {
    const { management } = both();
    const backend = createObservabilityBackend({ mode: 'managed', management, serviceId: SERVICE });
    const m = `/mgmt/v1/organizations/${ORG}/services/${SERVICE}/observability`;
    const paths = await exercise(backend, ok);
    // The Basic key on every call; the bearer token never sent.
    expect(server.requests.every((r) => r.headers.authorization?.startsWith('Basic '))).toBe(true);
    expect(paths).toEqual([
      `GET ${m}/dashboards`,
      `GET ${m}/dashboards/d1`,
      `POST ${m}/dashboards`,
      `PUT ${m}/dashboards/d1`,
      `DELETE ${m}/dashboards/d1`,
      `GET ${m}/alerts`,
      `GET ${m}/alerts/a1`,
      `POST ${m}/alerts`,
      `PUT ${m}/alerts/a1`,
      `DELETE ${m}/alerts/a1`,
    ]);
  });

  it('open-source: everything via /api/v2 with the bearer token', async () => {
    const { obs } = both();
    const backend = createObservabilityBackend({ mode: 'open-source', observability: obs });
    const paths = await exercise(backend, data);
    expect(paths.every((p) => p.includes(' /obs/api/v2/'))).toBe(true);
    expect(paths).toHaveLength(10);
  });

  it('managed mode without a management client or service id is a ConfigError', () => {
    const { obs, management } = both();
    expect(() =>
      createObservabilityBackend({ mode: 'managed', observability: obs, serviceId: SERVICE }),
    ).toThrow(ConfigError);
    expect(() =>
      createObservabilityBackend({ mode: 'managed', observability: obs, management }),
    ).toThrow(/serviceId/);
    expect(() => createObservabilityBackend({ mode: 'open-source', management })).toThrow(
      /open-source.*observability client/,
    );
  });
});
