/**
 * The alerts-only backend (provision-alerts' kit) against the full one: the same requests, the
 * same bodies on the wire, the same checks before sending, in both deployment modes.
 */
import { describe, expect, it } from 'vitest';
import {
  connectManagement,
  createAlertBackend,
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
  withOperations,
  type AlertBackend,
} from '../../../lib/api';
import { alertManagementOperations } from '../../../lib/api/management/alerts';
import { createAlertClient } from '../../../lib/api/observability-alerts';
import { ConfigError, ValidationError } from '../../../lib/errors';
import { cannedServerPerTest, ok, type CannedServer } from './canned-server';
import {
  alertBody,
  cannedClientOptions,
  fakeClock,
  observabilityCredentials,
  SERVICE,
} from './fixtures';

let server: CannedServer;
const closers = cannedServerPerTest((s) => (server = s));

const alertRecord = { id: 'a1', name: 'lag', state: 'OK' };
const { dashboardId: _dashboard, tileId: _tile, ...alertFields } = alertBody;
/** An alert on a saved search, its source in the spec's word (`search`). */
const searchAlert = { ...alertFields, source: 'search', savedSearchId: 's1' } as const;
const data = (value?: unknown) => ({
  status: 200,
  body: value === undefined ? {} : { data: value },
});

function clients() {
  const openSource = {
    baseUrl: `${server.url}/obs`,
    rateLimit: false as const,
    clock: fakeClock(),
  };
  const credentials = observabilityCredentials();
  const full = {
    management: createManagementClient(cannedClientOptions(`${server.url}/mgmt`)),
    observability: createObservabilityClient({ ...openSource, credentials }),
  };
  const alone = {
    management: withOperations(
      connectManagement(cannedClientOptions(`${server.url}/mgmt`)),
      alertManagementOperations,
    ),
    observability: createAlertClient({ ...openSource, credentials }),
  };
  closers.push(full.management, full.observability, alone.management, alone.observability);
  return { full, alone };
}

/** Every alert call once; what reached the server (method, path, body). */
async function exercise(backend: AlertBackend, envelope: (v?: unknown) => object) {
  const from = server.requests.length;
  server.enqueue(
    ...([[alertRecord], alertRecord, alertRecord, undefined].map((v) => envelope(v)) as []),
  );
  await backend.listAlerts();
  await backend.createAlert(searchAlert);
  await backend.updateAlert('a1', searchAlert);
  await backend.deleteAlert('a1');
  return server.requests.slice(from).map((r) => ({ method: r.method, url: r.url, body: r.body }));
}

describe('the alerts-only backend', () => {
  it.each([
    ['managed', ok],
    ['open-source', data],
  ] as const)('%s: sends exactly what the full backend sends', async (mode, envelope) => {
    const { full, alone } = clients();
    const options = { mode, serviceId: SERVICE };
    const expected = await exercise(createObservabilityBackend({ ...options, ...full }), envelope);
    const actual = await exercise(createAlertBackend({ ...options, ...alone }), envelope);
    expect(actual).toEqual(expected);
    expect(actual.map((r) => r.method)).toEqual(['GET', 'POST', 'PUT', 'DELETE']);
    // The open-source router takes the service's word for the source; the management API as given.
    const sent = JSON.parse(actual[1].body) as { source: string };
    expect(sent.source).toBe(mode === 'open-source' ? 'saved_search' : 'search');
  });

  it('checks a body before sending it, naming the request and the field', async () => {
    const { alone } = clients();
    const backend = createAlertBackend({ mode: 'managed', serviceId: SERVICE, ...alone });
    const noSearch = { ...searchAlert, savedSearchId: undefined };
    const error = await backend.createAlert(noSearch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/POST \/v1\/.*\/observability\/alerts/);
    expect((error as ValidationError).issues.join('\n')).toMatch(/savedSearchId/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a mode without its client, as the full backend does', () => {
    const { alone } = clients();
    expect(() =>
      createAlertBackend({
        mode: 'managed',
        observability: alone.observability,
        serviceId: SERVICE,
      }),
    ).toThrow(ConfigError);
    expect(() => createAlertBackend({ mode: 'managed', management: alone.management })).toThrow(
      /serviceId/,
    );
    expect(() => createAlertBackend({ mode: 'open-source', management: alone.management })).toThrow(
      /open-source.*observability client/,
    );
  });
});
