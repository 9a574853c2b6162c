/**
 * The rotation function's way into lib/keys (functions/rotate-key/handler.ts imports no other file
 * of it): the event Secrets Manager sends, the wiring from the env contract, and the one call.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import { readConnectionEnv } from '../config';
import { createLogger } from '../log';
import { readRotationConfig } from './config';
import { rotationDeps } from './deps';
import { ROTATION_STEPS, runRotationStep, type RotationDeps } from './rotation';

export type { RotationDeps } from './rotation';

/** The event Secrets Manager sends a rotation function. */
export const rotationEvent = z.lazy(() =>
  z.object({
    SecretId: z.string().check(z.minLength(1)),
    ClientRequestToken: z.string().check(z.minLength(1)),
    Step: z.enum(ROTATION_STEPS),
    /** Sent for rotations that use a separate token for cross-account access; not needed here. */
    RotationToken: z.optional(z.string()),
  }),
);
type RotationEvent = z.infer<typeof rotationEvent>;

/**
 * The function's deps from the env contract (read once per container, through lib/config.ts):
 * the API URL is required, the rotation settings are validated, logs name the function.
 */
export function rotationDepsFromEnv(
  secrets: SecretsManagerClient,
  env?: Record<string, string | undefined>,
): RotationDeps {
  const connection = readConnectionEnv(env, ['CLOUDOPS_API_URL']);
  return rotationDeps(connection, {
    secrets,
    config: readRotationConfig(env),
    logger: createLogger({
      level: connection.CLOUDOPS_LOG_LEVEL,
      fields: { function: 'rotate-key' },
    }),
  });
}

/** One invocation: the step the event names, on its secret and version (safe to repeat). */
export function rotateKey(deps: RotationDeps, event: RotationEvent): Promise<void> {
  return runRotationStep(deps, event.Step, {
    secretId: event.SecretId,
    token: event.ClientRequestToken,
  });
}
