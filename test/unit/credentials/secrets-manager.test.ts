import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretsManagerCredentials } from '../../../lib/credentials';
import { CloudOpsError, ValidationError } from '../../../lib/errors';
import { managementKeySecret, observabilityTokenSecret } from '../../../lib/schemas';
import { managementSecret, startCountingServer, type CountingServer } from './fixtures';

let server: CountingServer;
let clock = 0;

beforeEach(async () => {
  clock = 1_000_000;
  server = await startCountingServer();
  server.emulator.createSecret({
    name: 'mgmt',
    secretString: JSON.stringify(managementSecret('sm-secret-v1')),
  });
});

afterEach(async () => {
  await server.close();
});

const provider = (ttlMs = 60_000) =>
  secretsManagerCredentials({
    client: server.client,
    secretId: 'mgmt',
    schema: managementKeySecret,
    ttlMs,
    now: () => clock,
  });

async function rotateTo(keySecret: string): Promise<void> {
  await server.client.send(
    new PutSecretValueCommand({
      SecretId: 'mgmt',
      SecretString: JSON.stringify(managementSecret(keySecret)),
    }),
  );
}

describe('secretsManagerCredentials', () => {
  it('caches for the ttl, then reads again', async () => {
    const credentials = provider();
    expect(credentials.label).toBe('mgmt');
    expect((await credentials.get()).keySecret).toBe('sm-secret-v1');
    await rotateTo('sm-secret-v2');
    clock += 59_999;
    expect((await credentials.get()).keySecret).toBe('sm-secret-v1');
    expect(server.reads('mgmt')).toBe(1);
    clock += 1;
    expect((await credentials.get()).keySecret).toBe('sm-secret-v2');
    expect(server.reads('mgmt')).toBe(2);
  });

  it('refresh() forces a read and updates what get() serves', async () => {
    const credentials = provider();
    await credentials.get();
    await rotateTo('sm-secret-v3');
    expect((await credentials.refresh()).keySecret).toBe('sm-secret-v3');
    expect((await credentials.get()).keySecret).toBe('sm-secret-v3');
    expect(server.reads('mgmt')).toBe(2);
  });

  it('shares one request among concurrent get() calls, and one among concurrent refresh() calls', async () => {
    const credentials = provider();
    const values = await Promise.all(Array.from({ length: 10 }, () => credentials.get()));
    expect(new Set(values.map((v) => v.keySecret))).toEqual(new Set(['sm-secret-v1']));
    expect(server.reads('mgmt')).toBe(1);
    await Promise.all(Array.from({ length: 5 }, () => credentials.refresh()));
    expect(server.reads('mgmt')).toBe(2);
  });

  it('does not let refresh() reuse a read that get() started earlier', async () => {
    const credentials = provider();
    const first = credentials.get();
    const forced = credentials.refresh();
    await Promise.all([first, forced]);
    expect(server.reads('mgmt')).toBe(2);
  });

  it('names the secret id when it is missing or malformed, without the value', async () => {
    const missing = secretsManagerCredentials({
      client: server.client,
      secretId: 'nope',
      schema: observabilityTokenSecret,
    });
    await expect(missing.get()).rejects.toThrow(CloudOpsError);
    await expect(missing.get()).rejects.toThrow(
      /Could not read secret nope: ResourceNotFoundException/,
    );

    server.emulator.createSecret({
      name: 'obs',
      secretString: '{"token": 42, "note": "RECOGNISABLE-extra"}',
    });
    const malformed = secretsManagerCredentials({
      client: server.client,
      secretId: 'obs',
      schema: observabilityTokenSecret,
    });
    const error = await malformed.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toMatch(
      /^Secret obs is malformed: token: .*expected string/,
    );
    expect((error as ValidationError).message).not.toContain('RECOGNISABLE');
    // A failed read is not cached: the next get() asks again.
    await malformed.get().catch(() => undefined);
    expect(server.reads('obs')).toBe(2);
  });
});
