import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { MiddlewareObj, Request } from '@middy/core';
import secretsManager from '@middy/secrets-manager';
import { clearCache, getCache, modifyCache } from '@middy/util';
import type { Context as LambdaContext } from 'aws-lambda';
import type * as z from 'zod/mini';
import { managementKeySecret, observabilityTokenSecret } from '../schemas';
import { CloudOpsError } from '../errors';
import { parseSecret } from './parse';
import { AWSCURRENT, fetchSecret } from './secrets-manager';
import type {
  CredentialProvider,
  ManagementCredentialProvider,
  ObservabilityCredentialProvider,
} from './types';

export const DEFAULT_CREDENTIALS_CACHE_KEY = 'cloudops-credentials';

export interface CredentialsMiddlewareOptions {
  /** A ready client (tests and the sandbox point it at a local endpoint). */
  client: SecretsManagerClient;
  /**
   * Secret ids (names or ARNs). Only the ones given are read: a function that calls only the
   * observability API (open-source mode) names just the token secret.
   */
  secrets: { management?: string | undefined; observability?: string | undefined };
  /** How long @middy/secrets-manager keeps values between invocations. @default 5 minutes */
  cacheExpiryMs?: number;
  /**
   * Fetch when the middleware is created (Lambda cold start, at module load) instead of on the
   * first invocation. @default false, so importing a handler never touches the network.
   */
  prefetch?: boolean;
  /** Cache slot in @middy/util; distinct per middleware instance. @default 'cloudops-credentials' */
  cacheKey?: string;
}

export interface CredentialsContext {
  credentials: {
    management?: ManagementCredentialProvider;
    observability?: ObservabilityCredentialProvider;
  };
}

/** Keys under which @middy/secrets-manager stores the raw secrets (removed again from the context). */
const FETCH_KEYS = {
  management: 'cloudopsManagementSecret',
  observability: 'cloudopsObservabilitySecret',
} as const;
type FetchKey = (typeof FETCH_KEYS)[keyof typeof FETCH_KEYS];

/**
 * Middy middleware: @middy/secrets-manager fetches and caches the secrets (setToContext);
 * this validates them and puts CredentialProviders on `context.credentials`. A provider's
 * refresh() re-reads its secret from the service and replaces that one value in middy's
 * cache, so later invocations use the rotated value too. The raw secret objects are deleted
 * from the context so logging the context cannot print them.
 */
export function credentialsMiddleware(
  options: CredentialsMiddlewareOptions,
): MiddlewareObj<unknown, unknown, Error, LambdaContext> {
  const { client, secrets } = options;
  const cacheKey = options.cacheKey ?? DEFAULT_CREDENTIALS_CACHE_KEY;
  const fetchData: Partial<Record<FetchKey, string>> = {};
  if (secrets.management) fetchData[FETCH_KEYS.management] = secrets.management;
  if (secrets.observability) fetchData[FETCH_KEYS.observability] = secrets.observability;
  if (Object.keys(fetchData).length === 0) {
    throw new CloudOpsError('credentialsMiddleware: give at least one secret id');
  }

  const fetcher = secretsManager({
    // middy constructs its client from this class; hand it ours instead.
    AwsClient: class {
      constructor() {
        return currentStageOnly(client);
      }
    } as unknown as typeof SecretsManagerClient,
    fetchData,
    setToContext: true,
    cacheKey,
    cacheExpiry: options.cacheExpiryMs ?? 5 * 60_000,
    disablePrefetch: !options.prefetch,
  });

  /** Provider over the value middy resolved for this invocation. */
  function provider<S extends z.ZodMiniType>(
    fetchKey: string,
    secretId: string,
    schema: S,
    raw: unknown,
  ): CredentialProvider<z.infer<S>> {
    let current = parseSecret(secretId, raw, schema);
    let refreshing: Promise<z.infer<S>> | undefined;
    const refresh = async (): Promise<z.infer<S>> => {
      current = await fetchSecret(client, secretId, schema);
      const cached = getCache(cacheKey) as { value?: Record<string, unknown> };
      // Replace just this secret in middy's cache (values are promises there), so later
      // invocations get the refreshed value without re-reading the other secrets.
      if (cached.value)
        modifyCache(cacheKey, { ...cached.value, [fetchKey]: Promise.resolve(current) });
      return current;
    };
    return {
      label: secretId,
      get: () => Promise.resolve(current),
      refresh: () => (refreshing ??= refresh().finally(() => (refreshing = undefined))),
    };
  }

  const credentialsMiddlewareBefore = async (
    request: Request<unknown, unknown, Error, LambdaContext>,
  ) => {
    try {
      await fetcher.before?.(request);
    } catch (error) {
      throw new CloudOpsError(`Could not load secrets ${Object.values(fetchData).join(', ')}`, {
        cause: error,
      });
    }
    // The fetcher set the raw secrets on the context; this swaps them for providers.
    const context: LambdaContext &
      Partial<CredentialsContext> &
      Partial<Record<FetchKey, unknown>> = request.context;
    const management = secrets.management
      ? provider(
          FETCH_KEYS.management,
          secrets.management,
          managementKeySecret,
          context[FETCH_KEYS.management],
        )
      : undefined;
    const observability = secrets.observability
      ? provider(
          FETCH_KEYS.observability,
          secrets.observability,
          observabilityTokenSecret,
          context[FETCH_KEYS.observability],
        )
      : undefined;
    delete context[FETCH_KEYS.management];
    delete context[FETCH_KEYS.observability];
    context.credentials = {
      ...(management ? { management } : {}),
      ...(observability ? { observability } : {}),
    };
  };

  return { name: 'credentialsMiddleware', before: credentialsMiddlewareBefore };
}

/**
 * @middy/secrets-manager asks for a secret by id alone; this client asks for its AWSCURRENT
 * version by name (see AWSCURRENT), and passes every other call through unchanged.
 */
function currentStageOnly(client: SecretsManagerClient): SecretsManagerClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      return (command: unknown, ...rest: unknown[]) => {
        const staged =
          command instanceof GetSecretValueCommand &&
          command.input.VersionId === undefined &&
          command.input.VersionStage === undefined
            ? new GetSecretValueCommand({ ...command.input, VersionStage: AWSCURRENT })
            : command;
        return (target.send as (...args: unknown[]) => Promise<unknown>)(staged, ...rest);
      };
    },
  });
}

/** Forget middy's cached secrets (tests; or a function that knows every value is stale). */
export function clearCredentialsCache(cacheKey = DEFAULT_CREDENTIALS_CACHE_KEY): void {
  clearCache([cacheKey]);
}
