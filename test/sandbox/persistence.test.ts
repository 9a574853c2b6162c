/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- raw JSON bodies of the HTTP API under test */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, describe, expect, it } from 'vitest';
import { managementKeySecret, observabilityTokenSecret } from '../../lib/schemas';
import { basic, mgmt, obs } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';
import { DEFAULT_RATE_LIMITS } from '../../sandbox/index';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sm(url: string): SecretsManagerClient {
  return new SecretsManagerClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

describe('persistence', () => {
  it('restarts from the state file with everything (and working credentials) still there', async () => {
    const stateFile = join(dir, 'state.json');
    const first = await startTestSandbox({ rateLimits: DEFAULT_RATE_LIMITS, stateFile });
    const info = first.info;
    const created = await mgmt(first, 'POST', '/keys', { name: 'persisted', roles: ['admin'] });
    const { keyId, keySecret, key } = created.json.result;
    const dash = await obs(first, 'POST', '/dashboards', {
      name: 'kept',
      tiles: [{ name: 't', x: 0, y: 0, w: 4, h: 2 }],
    });
    const alert = await obs(first, 'POST', '/alerts', {
      name: 'kept alert',
      source: 'tile',
      dashboardId: dash.json.data.id,
      tileId: dash.json.data.tiles[0].id,
      threshold: 3,
      thresholdType: 'below',
      interval: '1h',
      channel: { type: 'webhook', webhookId: info.webhookId },
    });
    expect(alert.status).toBe(200);
    first.setPipeState(info.pipeIds[0], 'Degraded');
    first.clock.advance(3_600_000);
    const clockBefore = first.clock.now();
    await first.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const onDisk = readFileSync(stateFile, 'utf8');
    expect(onDisk).not.toContain(keySecret); // only hashes of API-created keys

    const second = await startTestSandbox({ rateLimits: DEFAULT_RATE_LIMITS, stateFile });
    try {
      expect(second.info).toMatchObject({
        organizationId: info.organizationId,
        keyId: info.keyId,
        keySecret: info.keySecret,
        observabilityToken: info.observabilityToken,
        keySecretId: info.keySecretId,
        pipeIds: info.pipeIds,
      });
      expect(second.clock.now() - clockBefore).toBeGreaterThanOrEqual(0);
      expect(second.clock.now() - clockBefore).toBeLessThan(60_000);
      expect((await mgmt(second, 'GET', `/keys/${key.id}`)).json.result.name).toBe('persisted');
      expect((await mgmt(second, 'GET', '/keys', undefined, basic(keyId, keySecret))).status).toBe(
        200,
      );
      expect((await obs(second, 'GET', `/dashboards/${dash.json.data.id}`)).json.data.name).toBe(
        'kept',
      );
      expect((await obs(second, 'GET', `/alerts/${alert.json.data.id}`)).json.data.name).toBe(
        'kept alert',
      );
      const pipe = await mgmt(
        second,
        'GET',
        `/services/${info.serviceId}/pipes/${info.pipeIds[0]}`,
      );
      expect(pipe.json.result.state).toBe('Degraded');
      // The seeded secrets survive too.
      const out = await sm(second.info.secretsManagerUrl).send(
        new GetSecretValueCommand({ SecretId: info.keySecretId }),
      );
      expect(managementKeySecret.parse(JSON.parse(out.SecretString!)).keyId).toBe(info.keyId);
    } finally {
      await second.close();
    }
  });
});

describe('secrets manager composition', () => {
  it('serves the seeded key and token secrets over AWS JSON 1.1, and logs the calls', async () => {
    const sb = await startTestSandbox({ rateLimits: DEFAULT_RATE_LIMITS });
    try {
      const client = sm(sb.info.secretsManagerUrl);
      const key = await client.send(new GetSecretValueCommand({ SecretId: sb.info.keySecretId }));
      const parsed = managementKeySecret.parse(JSON.parse(key.SecretString!));
      expect(parsed).toMatchObject({
        organizationId: sb.info.organizationId,
        keyId: sb.info.keyId,
        keyRecordId: sb.info.keyRecordId,
        roles: ['admin'],
      });
      const token = await client.send(
        new GetSecretValueCommand({ SecretId: sb.info.observabilityTokenSecretId }),
      );
      expect(observabilityTokenSecret.parse(JSON.parse(token.SecretString!)).token).toBe(
        sb.info.observabilityToken,
      );
      // The secret from Secrets Manager works against the management API.
      expect(
        (await mgmt(sb, 'GET', '/keys', undefined, basic(parsed.keyId, parsed.keySecret))).status,
      ).toBe(200);
      const smEntries = sb.requestLog.entries().filter((e) => e.surface === 'secretsmanager');
      expect(smEntries.map((e) => [e.operation, e.status])).toEqual([
        ['GetSecretValue', 200],
        ['GetSecretValue', 200],
      ]);
      sb.faults.queue({ route: 'POST /secretsmanager\\.GetSecretValue', kind: '500' });
      await expect(
        client.send(new GetSecretValueCommand({ SecretId: sb.info.keySecretId })),
      ).rejects.toThrow();
      client.destroy();
    } finally {
      await sb.close();
    }
  });
});
