/**
 * createClients' backend(): which deployment mode needs which settings, said in one line naming
 * them, before any request; the function kits without dashboards and alerts refuse plainly.
 */
import { describe, expect, it } from 'vitest';
import { EVERY_OPERATION } from '../../lib/all-clients';
import { keyOperations } from '../../lib/api/management/keys';
import { createClients, type ClientSettings } from '../../lib/clients';
import { staticCredentials } from '../../lib/credentials/static';
import { ConfigError } from '../../lib/errors';
import { managementAuth, observabilityTokenSecret } from '../../lib/schemas/secrets';
import { caught } from '../support/caught';

const management = staticCredentials(
  'key …test',
  {
    organizationId: '6d1f0c3e-2b1a-4c5d-9e8f-0a1b2c3d4e5f',
    keyId: 'key-id-1',
    keySecret: 'key-secret-value-1',
  },
  managementAuth,
);
const observability = staticCredentials(
  'observability token',
  { token: 'observability-token-1' },
  observabilityTokenSecret,
);
// Nothing here sends a request: the URLs are never dialled.
const URLS = { apiUrl: 'http://127.0.0.1:9', observabilityUrl: 'http://127.0.0.1:9' };

function clients(settings: Omit<ClientSettings, 'apiUrl' | 'observabilityUrl'>) {
  return createClients({ ...URLS, ...settings }, EVERY_OPERATION);
}

describe('the dashboards and alerts backend of createClients', () => {
  it('managed mode: through the management key, for the service asked', () => {
    const made = clients({ mode: 'managed', management });
    expect(made.backend('svc-1').mode).toBe('managed');
    made.close();
  });

  it('managed mode without a service names CLOUDOPS_SERVICE_ID', async () => {
    const made = clients({ mode: 'managed', management });
    const error = await caught(Promise.resolve().then(() => made.backend()));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'observability mode "managed" reaches dashboards and alerts through a service: set CLOUDOPS_SERVICE_ID',
    );
    made.close();
  });

  it('managed mode without a key names the management settings', async () => {
    const made = clients({ mode: 'managed', observability });
    const error = await caught(Promise.resolve().then(() => made.backend('svc-1')));
    expect(error.message).toMatch(
      /^the management API is not configured: set CLOUDOPS_API_URL and a key/,
    );
    made.close();
  });

  it('open-source mode: through the bearer token', () => {
    const made = clients({ mode: 'open-source', observability });
    expect(made.backend().mode).toBe('open-source');
    made.close();
  });

  it('open-source mode without a token names the observability settings', async () => {
    const made = clients({ mode: 'open-source', management });
    const error = await caught(Promise.resolve().then(() => made.backend()));
    expect(error.message).toBe(
      'the observability API is not configured: set CLOUDOPS_OBSERVABILITY_URL and ' +
        'CLOUDOPS_OBSERVABILITY_TOKEN (or CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID)',
    );
    made.close();
  });

  it('a kit without dashboards and alerts (the key rotation) refuses a backend', async () => {
    const made = createClients(
      { ...URLS, mode: 'managed', management },
      { management: keyOperations },
    );
    const error = await caught(Promise.resolve().then(() => made.backend('svc-1')));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'these clients were made without the dashboard and alert operations',
    );
    made.close();
  });
});
