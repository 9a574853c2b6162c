/**
 * Credentials are read by stage, explicitly: a GetSecretValue without VersionStage is left to
 * the endpoint's default, and an endpoint (an emulator, a caching proxy) whose default is
 * another version would hand out a stale key. The endpoint here is such a quirk, spoken to by
 * the real SDK over loopback: without a stage it answers the pending value.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  clearCredentialsCache,
  credentialsMiddleware,
  fetchSecret,
  secretsManagerCredentials,
  type CredentialsContext,
} from '../../../lib/credentials';
import { managementKeySecret } from '../../../lib/schemas';
import { managementSecret } from './fixtures';

const CURRENT = JSON.stringify(managementSecret('stage-current-secret-1'));
const PENDING = JSON.stringify(managementSecret('stage-pending-secret-2'));

let server: http.Server;
let client: SecretsManagerClient;
const stagesAsked: (string | undefined)[] = [];

beforeEach(async () => {
  stagesAsked.length = 0;
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        VersionStage?: string;
      };
      stagesAsked.push(input.VersionStage);
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify({
          Name: 'mgmt',
          ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:mgmt-AbCdEf',
          VersionId: input.VersionStage === 'AWSCURRENT' ? 'v-current' : 'v-pending',
          SecretString: input.VersionStage === 'AWSCURRENT' ? CURRENT : PENDING,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new SecretsManagerClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
});

afterEach(async () => {
  clearCredentialsCache('stage-test');
  client.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('secrets are read by stage', () => {
  it('fetchSecret and the cached provider ask for AWSCURRENT by name', async () => {
    expect((await fetchSecret(client, 'mgmt', managementKeySecret)).keySecret).toBe(
      'stage-current-secret-1',
    );
    const provider = secretsManagerCredentials({
      client,
      secretId: 'mgmt',
      schema: managementKeySecret,
    });
    expect((await provider.get()).keySecret).toBe('stage-current-secret-1');
    expect((await provider.refresh()).keySecret).toBe('stage-current-secret-1');
    expect(stagesAsked).toEqual(['AWSCURRENT', 'AWSCURRENT', 'AWSCURRENT']);
  });

  it('a stage asked for explicitly is sent as given', async () => {
    const pending = await fetchSecret(client, 'mgmt', managementKeySecret, 'AWSPENDING');
    expect(pending.keySecret).toBe('stage-pending-secret-2');
    expect(stagesAsked).toEqual(['AWSPENDING']);
  });

  it('the Lambda middleware reads AWSCURRENT too', async () => {
    const seen: string[] = [];
    const handler = middy<unknown, void, Error, Context & CredentialsContext>(
      async (_event: unknown, context: Context & CredentialsContext) => {
        seen.push((await context.credentials.management!.get()).keySecret);
      },
    ).use(
      credentialsMiddleware({ client, secrets: { management: 'mgmt' }, cacheKey: 'stage-test' }),
    );
    await handler({}, { functionName: 'f', awsRequestId: 'r' } as unknown as Context &
      CredentialsContext);
    expect(seen).toEqual(['stage-current-secret-1']);
    expect(stagesAsked).toEqual(['AWSCURRENT']);
  });
});
