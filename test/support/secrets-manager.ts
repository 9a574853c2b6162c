import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  createSecretsManagerEmulator,
  type SecretsManagerEmulator,
  type SecretsManagerEmulatorOptions,
} from '../../sandbox/secrets-manager';

/** The real SDK client pointed at a local emulator, with dummy credentials. */
export function sdkClient(endpoint: string): SecretsManagerClient {
  return new SecretsManagerClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

/** A ClientRequestToken as the SDK makes them (AWS wants 32-64 characters). */
export const token = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export interface SecretsManagerServer {
  /** `http://127.0.0.1:<port>`: the SDK's `endpoint` or AWS_ENDPOINT_URL_SECRETS_MANAGER. */
  url: string;
  emulator: SecretsManagerEmulator;
  close(): Promise<void>;
}

/** The Secrets Manager emulator alone on a free loopback port (the sandbox serves it beside the APIs). */
export async function startSecretsManagerServer(
  options: SecretsManagerEmulatorOptions & { port?: number } = {},
): Promise<SecretsManagerServer> {
  const emulator = createSecretsManagerEmulator(options);
  const server = createServer((req, res) => emulator.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    emulator,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets from SDK clients would hold close() open.
        server.closeAllConnections();
      }),
  };
}
