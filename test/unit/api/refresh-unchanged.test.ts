import { afterEach, beforeEach, expect, it } from 'vitest';
import { createManagementClient, isUnauthorized } from '../../../lib/api';
import { staticCredentials } from '../../../lib/credentials';
import { managementAuth } from '../../../lib/schemas';
import { startCannedServer, type CannedServer } from './canned-server';

const ORG = '7d0c6a4e-8f1b-4c2d-9e3f-1a2b3c4d5e6f';
const SERVICE = '0b7e1c2d-3a4f-4b5c-8d6e-7f8091a2b3c4';
let server: CannedServer;

beforeEach(async () => {
  server = await startCannedServer();
});
afterEach(async () => {
  await server.close();
});

it('after a 401 with a credential that cannot change, fails at once instead of repeating the call', async () => {
  const client = createManagementClient({
    baseUrl: server.url,
    credentials: staticCredentials(
      'env key',
      { organizationId: ORG, keyId: 'KEYID-static', keySecret: 'static-secret-value-1' },
      managementAuth,
    ),
    rateLimit: false,
  });
  server.enqueue(
    { status: 401, body: { status: 401, error: 'UNAUTHORIZED: bad key', requestId: 'r-1' } },
    { status: 200, body: { status: 200, requestId: 'r-2', result: [] } },
  );
  try {
    const error = await client.listPipes(SERVICE).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isUnauthorized(error)).toBe(true);
    // The same credential would only earn the same 401: one request, not two.
    expect(server.requests).toHaveLength(1);
  } finally {
    client.close();
  }
});
