import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createManagementClient } from '../../lib/api';
import { readConnectionEnv } from '../../lib/config';
import { readRotationConfig, type RotationDeps } from '../../lib/keys';
import { createLogger } from '../../lib/log';

/** Production wiring from env (read once per container, through lib/config.ts). */
export function rotationDepsFromEnv(): RotationDeps {
  const connection = readConnectionEnv(undefined, ['CLOUDOPS_API_URL']);
  const logger = createLogger({
    level: connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'rotate-key' },
  });
  return {
    secrets: new SecretsManagerClient({}),
    connect: (credentials) =>
      createManagementClient({
        baseUrl: connection.CLOUDOPS_API_URL!,
        credentials,
        rateLimit: connection.CLOUDOPS_MANAGEMENT_RATE_LIMIT,
        timeoutMs: connection.CLOUDOPS_REQUEST_TIMEOUT_MS,
        logger,
      }),
    now: Date.now,
    config: readRotationConfig(),
    logger,
  };
}
