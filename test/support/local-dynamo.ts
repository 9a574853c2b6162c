/** An in-process DynamoDB (dynalite, a dev dependency) on loopback with the watch table: tests and the bench. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { createWatchTable, DynamoWatchStore } from '../../lib/watch/dynamo-store';

export interface LocalDynamo {
  endpoint: string;
  client: DynamoDBClient;
  tableName: string;
  /** A store over the table; each call gives a separate client (like separate runs). */
  store(): DynamoWatchStore;
  close(): Promise<void>;
}

export async function startLocalDynamo(tableName = 'cloudops-pipe-watchdog'): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const makeClient = () =>
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      // dynalite accepts any credentials; these are placeholders, not secrets.
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  const client = makeClient();
  const clients = [client];
  await createWatchTable(client, tableName);
  return {
    endpoint,
    client,
    tableName,
    store() {
      const c = makeClient();
      clients.push(c);
      return new DynamoWatchStore({ client: c, tableName });
    },
    async close() {
      for (const c of clients) c.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
