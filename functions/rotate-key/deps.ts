import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readConnectionEnv } from '../../lib/config';
import { readRotationConfig } from '../../lib/keys/config';
import { rotationDeps } from '../../lib/keys/deps';
import type { RotationDeps } from '../../lib/keys/rotation';
import { createLogger } from '../../lib/log';

/** Production wiring from env (read once per container, through lib/config.ts). */
export function rotationDepsFromEnv(): RotationDeps {
  const connection = readConnectionEnv(undefined, ['CLOUDOPS_API_URL']);
  return rotationDeps(connection, {
    secrets: new SecretsManagerClient({}),
    config: readRotationConfig(),
    logger: createLogger({
      level: connection.CLOUDOPS_LOG_LEVEL,
      fields: { function: 'rotate-key' },
    }),
  });
}
