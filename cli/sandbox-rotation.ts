/**
 * What a sandbox's RotateSecret calls: the real rotation handler, as Lambda would run it, against
 * the sandbox's own endpoints and clock. `cloudops sandbox` and the demo both wire it, so
 * `keys rotate --via secrets-manager` works against a local sandbox as it does in AWS.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { createRotationHandler } from '../functions/rotate-key/handler';
import { readConnectionEnv } from '../lib/config';
import { rotationDeps, type RotationConfig } from '../lib/keys';
import { silentLogger } from '../lib/log';
import type { Sandbox } from '../sandbox';
import type { RotationInvoker } from '../sandbox/secrets-manager';
import { sandboxEnv } from './connect';

export function sandboxSecretsClient(sandbox: Sandbox): SecretsManagerClient {
  return new SecretsManagerClient({
    endpoint: sandbox.info.secretsManagerUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' },
  });
}

export function sandboxRotationInvoker(sandbox: Sandbox, config: RotationConfig): RotationInvoker {
  const connection = readConnectionEnv(sandboxEnv(sandbox.info));
  const deps = rotationDeps(connection, {
    secrets: sandboxSecretsClient(sandbox),
    config,
    logger: silentLogger,
    now: () => sandbox.clock.now(),
  });
  const handler = createRotationHandler(deps);
  return async (_arn, event) => {
    await handler(event, {} as Context);
  };
}
