import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type * as z from 'zod/mini';
import { CloudOpsError } from '../errors';
import { parseSecret } from './parse';
import type { CredentialProvider } from './types';

export const DEFAULT_CREDENTIALS_TTL_MS = 5 * 60_000;
/**
 * The staging label of a secret's current value. Always sent by name: a read without one is
 * left to the endpoint's default, which an emulator, a proxy or a cache may answer with another
 * version (e.g. the AWSPENDING value mid-rotation).
 */
export const AWSCURRENT = 'AWSCURRENT';

export interface SecretsManagerCredentialsOptions<S extends z.ZodMiniType> {
  client: SecretsManagerClient;
  secretId: string;
  schema: S;
  /** How long a fetched value is served from cache. @default 5 minutes */
  ttlMs?: number;
  /** Epoch milliseconds. @default Date.now */
  now?: () => number;
  /** @default AWSCURRENT, always sent */
  versionStage?: string;
}

/** Read one secret's SecretString and validate it; errors name the secret id, never the value. */
export async function fetchSecret<S extends z.ZodMiniType>(
  client: SecretsManagerClient,
  secretId: string,
  schema: S,
  versionStage?: string,
): Promise<z.infer<S>> {
  let secretString: string | undefined;
  try {
    const output = await client.send(
      new GetSecretValueCommand({ SecretId: secretId, VersionStage: versionStage ?? AWSCURRENT }),
    );
    secretString = output.SecretString;
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new CloudOpsError(`Could not read secret ${secretId}: ${reason}`, { cause: error });
  }
  return parseSecret(secretId, secretString, schema);
}

/**
 * A credential from Secrets Manager, cached for `ttlMs`. Concurrent get() calls share one
 * request; refresh() always asks the service again (after a 401, the secret may have been
 * rotated), and concurrent refresh() calls share that one forced request.
 */
export function secretsManagerCredentials<S extends z.ZodMiniType>(
  options: SecretsManagerCredentialsOptions<S>,
): CredentialProvider<z.infer<S>> {
  const { client, secretId, schema, versionStage } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_CREDENTIALS_TTL_MS;
  const now = options.now ?? Date.now;
  let cached: { value: z.infer<S>; fetchedAt: number } | undefined;
  let inFlight: { promise: Promise<z.infer<S>>; forced: boolean } | undefined;

  const load = (forced: boolean): Promise<z.infer<S>> => {
    const promise = fetchSecret(client, secretId, schema, versionStage)
      .then((value) => {
        cached = { value, fetchedAt: now() };
        return value;
      })
      .finally(() => {
        if (inFlight?.promise === promise) inFlight = undefined;
      });
    inFlight = { promise, forced };
    return promise;
  };

  return {
    label: secretId,
    get() {
      if (cached && now() - cached.fetchedAt < ttlMs) return Promise.resolve(cached.value);
      return inFlight?.promise ?? load(false);
    },
    refresh() {
      // A fetch started by get() may predate the 401 that prompted this refresh: do not reuse it.
      return inFlight?.forced ? inFlight.promise : load(true);
    },
  };
}
