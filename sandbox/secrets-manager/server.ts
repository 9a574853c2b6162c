import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createSecretsManagerEmulator,
  type SecretsManagerEmulator,
  type SecretsManagerEmulatorOptions,
} from './emulator';

export interface SecretsManagerServer {
  /** `http://127.0.0.1:<port>`: the SDK's `endpoint` or AWS_ENDPOINT_URL_SECRETS_MANAGER. */
  url: string;
  emulator: SecretsManagerEmulator;
  close(): Promise<void>;
}

/** Run the emulator alone on a free loopback port (tests, tools). */
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
