import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { MiddlewareObj } from '@middy/core';
import type { Context as LambdaContext } from 'aws-lambda';
import type * as z from 'zod/mini';
import { managementKeySecret, observabilityTokenSecret } from '../schemas';
import { CloudOpsError, ConfigError, ValidationError } from '../errors';
import { DEFAULT_CREDENTIALS_TTL_MS, secretsManagerCredentials } from './secrets-manager';
import type { ManagementCredentialProvider, ObservabilityCredentialProvider } from './types';

export const DEFAULT_CREDENTIALS_CACHE_KEY = 'cloudops-credentials';

export interface CredentialsMiddlewareOptions {
  /** A ready client (tests and the sandbox point it at a local endpoint). */
  client: SecretsManagerClient;
  /**
   * Secret ids (names or ARNs). Only the ones given are read: a function that calls only the
   * observability API (open-source mode) names just the token secret.
   */
  secrets: { management?: string | undefined; observability?: string | undefined };
  /** How long a read value is kept between invocations. @default 5 minutes */
  cacheExpiryMs?: number;
  /**
   * Fetch when the middleware is created (Lambda cold start, at module load) instead of on the
   * first invocation. @default false, so importing a handler never touches the network.
   */
  prefetch?: boolean;
  /** The container-wide cache slot; distinct per middleware instance. @default 'cloudops-credentials' */
  cacheKey?: string;
}

export interface CredentialsContext {
  credentials: {
    management?: ManagementCredentialProvider;
    observability?: ObservabilityCredentialProvider;
  };
}

type Credentials = CredentialsContext['credentials'];

/**
 * The providers of each cache slot, container-wide (as long as the Lambda container lives): a
 * later invocation, or another handler instance with the same slot, reads the cached values.
 */
const providersBySlot = new Map<string, Credentials>();

/**
 * Middy middleware: before each invocation, every named secret is read from Secrets Manager (or
 * taken from the cache, which keeps a value `cacheExpiryMs`) and validated, and
 * `context.credentials` gets its CredentialProvider. A provider's refresh() re-reads its secret
 * (after a 401: it may have been rotated) and the cache keeps the new value for later
 * invocations. Secret values never go on the context, so logging the context cannot print them.
 */
export function credentialsMiddleware(
  options: CredentialsMiddlewareOptions,
): MiddlewareObj<unknown, unknown, Error, LambdaContext> {
  const { client, secrets } = options;
  const secretIds = [secrets.management, secrets.observability].filter((id): id is string =>
    Boolean(id),
  );
  if (secretIds.length === 0) {
    throw new CloudOpsError('credentialsMiddleware: give at least one secret id');
  }
  const slot = `${options.cacheKey ?? DEFAULT_CREDENTIALS_CACHE_KEY}|${secretIds.join('|')}`;
  const ttlMs = options.cacheExpiryMs ?? DEFAULT_CREDENTIALS_TTL_MS;
  const cached = <S extends z.ZodMiniType>(secretId: string, schema: S) =>
    secretsManagerCredentials({ client, secretId, schema, ttlMs });
  const providers = (): Credentials => {
    let credentials = providersBySlot.get(slot);
    if (!credentials) {
      credentials = {};
      if (secrets.management)
        credentials.management = cached(secrets.management, managementKeySecret);
      if (secrets.observability)
        credentials.observability = cached(secrets.observability, observabilityTokenSecret);
      providersBySlot.set(slot, credentials);
    }
    return credentials;
  };
  const readAll = (credentials: Credentials) =>
    Promise.all([credentials.management?.get(), credentials.observability?.get()]);
  // A failed prefetch is not kept: the first invocation reads again and fails with the reason.
  if (options.prefetch) readAll(providers()).catch(() => undefined);

  const credentialsMiddlewareBefore = async (request: { context: LambdaContext }) => {
    const credentials = providers();
    try {
      await readAll(credentials);
    } catch (error) {
      // A secret read but invalid (or still the placeholder) names itself and its fields.
      if (error instanceof ValidationError || error instanceof ConfigError) throw error;
      throw new CloudOpsError(`Could not load secrets ${secretIds.join(', ')}`, { cause: error });
    }
    (request.context as LambdaContext & CredentialsContext).credentials = { ...credentials };
  };

  return { name: 'credentialsMiddleware', before: credentialsMiddlewareBefore };
}

/** Forget the cached secrets of a cache key (tests; or a function that knows every value is stale). */
export function clearCredentialsCache(cacheKey = DEFAULT_CREDENTIALS_CACHE_KEY): void {
  for (const slot of providersBySlot.keys()) {
    if (slot.startsWith(`${cacheKey}|`)) providersBySlot.delete(slot);
  }
}
