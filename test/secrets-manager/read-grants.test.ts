/**
 * The emulator's read grants (IAM as far as reads go): a caller limited to some secrets reads
 * those, and gets AccessDeniedException, as AWS answers, for any other, existing or not; a
 * caller never limited reads everything.
 */
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  sdkClient,
  startSecretsManagerServer,
  type SecretsManagerServer,
} from '../support/secrets-manager';

let server: SecretsManagerServer;
let admin: SecretsManagerClient;
let limited: SecretsManagerClient;

beforeEach(async () => {
  server = await startSecretsManagerServer();
  admin = sdkClient(server.url);
  limited = new SecretsManagerClient({
    endpoint: server.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'sync-role', secretAccessKey: 'x' },
    maxAttempts: 1,
  });
  for (const name of ['hooks/granted', 'hooks/other'])
    await admin.send(new CreateSecretCommand({ Name: name, SecretString: `value of ${name}` }));
  server.emulator.grantReads('sync-role', ['hooks/granted']);
});
afterEach(async () => {
  admin.destroy();
  limited.destroy();
  await server.close();
});

const denied = (client: SecretsManagerClient, id: string) =>
  client.send(new GetSecretValueCommand({ SecretId: id })).then(
    () => 'read',
    (error: Error) => error.name,
  );

describe('read grants', () => {
  it('a limited caller reads what it is granted and is denied the rest, existing or not', async () => {
    const read = await limited.send(new GetSecretValueCommand({ SecretId: 'hooks/granted' }));
    expect(read.SecretString).toBe('value of hooks/granted');
    expect(await denied(limited, 'hooks/other')).toBe('AccessDeniedException');
    expect(await denied(limited, 'hooks/absent')).toBe('AccessDeniedException');
    await expect(
      limited.send(new DescribeSecretCommand({ SecretId: 'hooks/other' })),
    ).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });

  it('a caller never limited reads every secret; a missing one is not found', async () => {
    expect(await denied(admin, 'hooks/other')).toBe('read');
    expect(await denied(admin, 'hooks/absent')).toBe('ResourceNotFoundException');
  });
});
