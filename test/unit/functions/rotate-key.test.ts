import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { createRotationHandler } from '../../../functions/rotate-key/handler';
import { DEFAULT_ROTATION_CONFIG } from '../../../lib/keys';
import { rotationDepsFromEnv } from '../../../lib/keys/entry';

const secretsClient = () =>
  new SecretsManagerClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });

describe('the rotate-key handler and its lib/keys entry', () => {
  it('fails a malformed rotation event naming each bad field, before any call', async () => {
    const secrets = secretsClient();
    const send = vi.spyOn(secrets, 'send');
    const connect = vi.fn();
    const handler = createRotationHandler({
      secrets,
      connect,
      now: Date.now,
      config: DEFAULT_ROTATION_CONFIG,
    });
    await expect(
      handler({ SecretId: 'arn:secret', Step: 'rotateEverything' }, {} as Context),
    ).rejects.toThrow(/^Invalid rotation event: ClientRequestToken: .+; Step: .+/);
    expect(send).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
    secrets.destroy();
  });

  it('wires the deployed function from env: the API URL is required, settings are validated', () => {
    const secrets = secretsClient();
    expect(() => rotationDepsFromEnv(secrets, {})).toThrow(/CLOUDOPS_API_URL/);
    expect(() =>
      rotationDepsFromEnv(secrets, {
        CLOUDOPS_API_URL: 'http://127.0.0.1:9',
        CLOUDOPS_KEY_LIFETIME: 'soon',
      }),
    ).toThrow(/CLOUDOPS_KEY_LIFETIME/);
    const deps = rotationDepsFromEnv(secrets, {
      CLOUDOPS_API_URL: 'http://127.0.0.1:9',
      CLOUDOPS_KEY_LIFETIME: '30d',
    });
    expect(deps.secrets).toBe(secrets);
    expect(deps.config.lifetimeMs).toBe(30 * 86_400_000);
    secrets.destroy();
  });
});
