import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  startSecretsManagerServer,
  type SecretsManagerServer,
} from '../../support/secrets-manager';

export const managementSecret = (keySecret: string) => ({
  organizationId: '2f3c0a1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
  keyId: 'AKEYID0001',
  keySecret,
  keyRecordId: '7a8b9c0d-1e2f-4a3b-9c5d-6e7f8a9b0c1d',
  roles: ['admin'],
  expireAt: '2030-01-01T00:00:00Z',
});

export interface CountingServer extends SecretsManagerServer {
  /** GetSecretValue requests answered, per secret name. */
  reads: (name: string) => number;
  client: SecretsManagerClient;
}

/** The emulator on loopback with the real SDK client, counting GetSecretValue calls. */
export async function startCountingServer(): Promise<CountingServer> {
  const server = await startSecretsManagerServer();
  const counts = new Map<string, number>();
  server.emulator.onRequest = (entry) => {
    if (entry.operation === 'GetSecretValue' && entry.secretName) {
      counts.set(entry.secretName, (counts.get(entry.secretName) ?? 0) + 1);
    }
  };
  const client = new SecretsManagerClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return {
    ...server,
    client,
    reads: (name) => counts.get(name) ?? 0,
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}
