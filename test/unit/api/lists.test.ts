import { describe, expect, it } from 'vitest';
import {
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
} from '../../../lib/api';
import { cannedServerPerTest, ok, type CannedServer } from './canned-server';
import {
  fakeClock,
  managementCredentials,
  observabilityCredentials,
  ORG,
  SERVICE,
} from './fixtures';

let server: CannedServer;
const closers = cannedServerPerTest((s) => (server = s));

const hook = (i: number) => ({
  id: `65f1c2d3e4f5a6b7c8d9${String(i).padStart(4, '0')}`,
  name: `hook ${i}`,
  service: 'slack',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  somethingNew: true,
});
const source = {
  id: '65f1c2d3e4f5a6b7c8d9e0f1',
  name: 'Logs',
  kind: 'log',
  connection: 'c1',
  from: { databaseName: 'default', tableName: null },
};

function clients() {
  const obs = createObservabilityClient({
    baseUrl: `${server.url}/obs`,
    credentials: observabilityCredentials(),
    rateLimit: false,
    clock: fakeClock(),
  });
  const management = createManagementClient({
    baseUrl: `${server.url}/mgmt`,
    credentials: managementCredentials(),
    rateLimit: false,
    clock: fakeClock(),
  });
  closers.push(obs, management);
  return { obs, management };
}

describe('sources and webhooks lists', () => {
  it('/api/v2 webhooks are read page by page until meta.total', async () => {
    const { obs } = clients();
    const all = Array.from({ length: 1500 }, (_, i) => hook(i));
    server.enqueue(
      {
        status: 200,
        body: { data: all.slice(0, 1000), meta: { total: 1500, limit: 1000, offset: 0 } },
      },
      {
        status: 200,
        body: { data: all.slice(1000), meta: { total: 1500, limit: 1000, offset: 1000 } },
      },
    );
    const hooks = await obs.listWebhooks();
    expect(hooks).toHaveLength(1500);
    expect(hooks[1499]).toMatchObject({ name: 'hook 1499', somethingNew: true });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/obs/api/v2/webhooks?limit=1000&offset=0',
      '/obs/api/v2/webhooks?limit=1000&offset=1000',
    ]);
  });

  it('an unpaged answer (no meta) is the whole list; a server ignoring offset cannot loop', async () => {
    const { obs } = clients();
    server.enqueue({ status: 200, body: { data: [hook(1)] } });
    expect(await obs.listWebhooks()).toHaveLength(1);
    const full = Array.from({ length: 1000 }, (_, i) => hook(i));
    server.enqueue(
      { status: 200, body: { data: full, meta: { total: 5000, limit: 1000 } } },
      { status: 200, body: { data: [], meta: { total: 5000, limit: 1000 } } },
    );
    expect(await obs.listWebhooks()).toHaveLength(1000);
    expect(server.requests).toHaveLength(3);
  });

  it('managed mode reads both lists through the management API; open-source through /api/v2', async () => {
    const { obs, management } = clients();
    const managed = createObservabilityBackend({ mode: 'managed', management, serviceId: SERVICE });
    const open = createObservabilityBackend({ mode: 'open-source', observability: obs });
    server.enqueue(ok([source]), ok([hook(1)]), { status: 200, body: { data: [source] } });
    expect(await managed.listSources?.()).toMatchObject([{ name: 'Logs', kind: 'log' }]);
    expect(await managed.listWebhooks?.()).toMatchObject([{ name: 'hook 1' }]);
    expect(await open.listSources?.()).toMatchObject([{ id: source.id }]);
    const m = `/mgmt/v1/organizations/${ORG}/services/${SERVICE}/observability`;
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET ${m}/sources`,
      `GET ${m}/webhooks`,
      'GET /obs/api/v2/sources',
    ]);
  });
});
