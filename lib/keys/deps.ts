import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ManagementConnection } from '../api/management/connection';
import { keyReadOperations, keyWriteOperations } from '../api/management/keys';
import { pipeProbeOperations } from '../api/management/pipe-probe';
import { clientSettings, createManagement, requireManagement } from '../clients';
import type { ConnectionEnv } from '../config';
import type { Logger } from '../log';
import type { RotationConfig } from './config';
import type { RotationApiOperations, RotationDeps } from './rotation';

/** The management calls a rotation makes: keys, and a pipe list to test the new key with. */
function rotationOperations(connection: ManagementConnection): RotationApiOperations {
  return {
    ...keyReadOperations(connection),
    ...keyWriteOperations(connection),
    ...pipeProbeOperations(connection),
  };
}

/**
 * The rotator's wiring from the env contract (the function and `cloudops keys rotate` share
 * it): each step's management client comes from lib/clients.ts with the credential that step
 * needs (the current, pending or admin key).
 */
export function rotationDeps(
  connection: ConnectionEnv,
  options: {
    secrets: SecretsManagerClient;
    config: RotationConfig;
    logger: Logger;
    /** @default Date.now */
    now?: () => number;
  },
): RotationDeps {
  return {
    secrets: options.secrets,
    connect: (credentials) =>
      requireManagement(
        createManagement(
          clientSettings(connection, { management: credentials }, options.logger),
          rotationOperations,
        ),
      ),
    now: options.now ?? Date.now,
    config: options.config,
    logger: options.logger,
  };
}
