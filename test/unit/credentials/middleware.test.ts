import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  clearCredentialsCache,
  credentialsMiddleware,
  type CredentialsContext,
} from '../../../lib/credentials';
import { managementSecret, startCountingServer, type CountingServer } from './fixtures';

let server: CountingServer;

const lambdaContext = (): Context & CredentialsContext =>
  ({
    functionName: 'test-fn',
    awsRequestId: 'req-1',
    getRemainingTimeInMillis: () => 30_000,
  }) as unknown as Context & CredentialsContext;

beforeEach(async () => {
  server = await startCountingServer();
  server.emulator.createSecret({
    name: 'mgmt',
    secretString: JSON.stringify(managementSecret('mw-secret-v1')),
  });
  server.emulator.createSecret({ name: 'obs', secretString: '{"token":"mw-token-v1"}' });
});

afterEach(async () => {
  clearCredentialsCache();
  await server.close();
});

/** A middy-wrapped handler that reports what it saw through its providers. */
function handlerWith(options: { refresh?: boolean } = {}) {
  const seen: Array<{ keySecret: string; token: string | undefined; contextKeys: string[] }> = [];
  const base = async (_event: unknown, context: Context & CredentialsContext) => {
    const { management, observability } = context.credentials;
    const key = options.refresh ? await management!.refresh() : await management!.get();
    seen.push({
      keySecret: key.keySecret,
      token: (await observability?.get())?.token,
      contextKeys: Object.keys(context).filter((k) => k.startsWith('cloudops')),
    });
    return 'ok';
  };
  const middleware = credentialsMiddleware({
    client: server.client,
    secrets: { management: 'mgmt', observability: 'obs' },
    cacheExpiryMs: 60_000,
  });
  const handler = middy<unknown, string, Error, Context & CredentialsContext>(base).use(middleware);
  return { handler, seen };
}

describe('credentialsMiddleware (against the emulator)', () => {
  it('does not fetch before the first invocation, then validates and caches across invocations', async () => {
    const { handler, seen } = handlerWith();
    expect(server.reads('mgmt')).toBe(0);
    await handler({}, lambdaContext());
    await handler({}, lambdaContext());
    expect(seen).toEqual([
      { keySecret: 'mw-secret-v1', token: 'mw-token-v1', contextKeys: [] },
      { keySecret: 'mw-secret-v1', token: 'mw-token-v1', contextKeys: [] },
    ]);
    expect(server.reads('mgmt')).toBe(1);
    expect(server.reads('obs')).toBe(1);
  });

  it('refresh() re-reads one secret, and later invocations get the refreshed value from the cache', async () => {
    const plain = handlerWith();
    await plain.handler({}, lambdaContext());
    await server.client.send(
      new PutSecretValueCommand({
        SecretId: 'mgmt',
        SecretString: JSON.stringify(managementSecret('mw-secret-v2')),
      }),
    );

    // Same cache key: a second handler instance models the next invocation of the same function.
    const refreshing = handlerWith({ refresh: true });
    await refreshing.handler({}, lambdaContext());
    expect(refreshing.seen[0]?.keySecret).toBe('mw-secret-v2');
    expect(server.reads('mgmt')).toBe(2);

    await plain.handler({}, lambdaContext());
    expect(plain.seen[1]?.keySecret).toBe('mw-secret-v2');
    expect(server.reads('mgmt')).toBe(2);
    expect(server.reads('obs')).toBe(1);
  });

  it('fails the invocation naming the secret id and field when a secret is malformed', async () => {
    server.emulator.createSecret({ name: 'bad-obs', secretString: '{"token":""}' });
    const handler = middy(() => Promise.resolve('unreachable')).use(
      credentialsMiddleware({
        client: server.client,
        secrets: { management: 'mgmt', observability: 'bad-obs' },
      }),
    );
    await expect(handler({}, lambdaContext())).rejects.toThrow(
      /Secret bad-obs is malformed: token: /,
    );
  });

  it('fails the invocation naming the secret ids when one cannot be read', async () => {
    const handler = middy(() => Promise.resolve('unreachable')).use(
      credentialsMiddleware({ client: server.client, secrets: { management: 'missing' } }),
    );
    await expect(handler({}, lambdaContext())).rejects.toThrow(/Could not load secrets missing/);
  });

  it('a secret that could not be read is read again on the next invocation', async () => {
    const handler = middy(() => Promise.resolve('ok')).use(
      credentialsMiddleware({ client: server.client, secrets: { management: 'late' } }),
    );
    await expect(handler({}, lambdaContext())).rejects.toThrow(/Could not load secrets late/);
    server.emulator.createSecret({
      name: 'late',
      secretString: JSON.stringify(managementSecret('mw-secret-late')),
    });
    await expect(handler({}, lambdaContext())).resolves.toBe('ok');
    expect(server.reads('late')).toBe(2);
  });

  it('a secret still holding its placeholder fails as not configured, not as unreadable', async () => {
    server.emulator.createSecret({
      name: 'fresh',
      secretString: '{"cloudopsNotConfigured":true,"placeholder":"x"}',
    });
    const handler = middy(() => Promise.resolve('unreachable')).use(
      credentialsMiddleware({ client: server.client, secrets: { observability: 'fresh' } }),
    );
    await expect(handler({}, lambdaContext())).rejects.toMatchObject({
      name: 'NotConfiguredError',
      secretId: 'fresh',
    });
  });

  it('refuses to be made without a secret id (an empty one is none)', () => {
    expect(() =>
      credentialsMiddleware({
        client: server.client,
        secrets: { management: '', observability: '' },
      }),
    ).toThrow('credentialsMiddleware: give at least one secret id');
  });
});
