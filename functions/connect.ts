/**
 * Function side of the connection (cli/connect.ts is the CLI side): credentials from Secrets
 * Manager through lib/credentials' middy middleware (cached, refreshed on a 401) or values in
 * env, and the API clients for each invocation from lib/clients.ts.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  clientSettings,
  createClients,
  envCredentials,
  type ClientSettings,
  type Clients,
} from '../lib/clients';
import type { ClientKit } from '../lib/api/kit';
import type { ObservabilityBackend } from '../lib/api/observability-backend';
import type { ObservabilityClient } from '../lib/api/observability-client';
import { ENV, type ConnectionEnv } from '../lib/config';
import { credentialsMiddleware, type CredentialsContext } from '../lib/credentials';
import { ConfigError } from '../lib/errors';
import { silentLogger, type Logger } from '../lib/log';
import { notConfiguredMiddleware } from './runtime';

type Closable = { close(): void };

export interface FunctionConnectionOptions<M extends object, C extends Closable, B> {
  config: ConnectionEnv;
  /** The operations this function calls: its bundle carries only these. */
  kit: ClientKit<M, C, B>;
  /** The APIs this function calls: only their secrets are read (and must be granted). */
  needs: { management: boolean; observability: boolean };
  /** @default a client for the function's region */
  secretsManager?: SecretsManagerClient;
  logger?: Logger;
  /** Settings beyond the env contract (e.g. the watchdog's per-call deadline). */
  overrides?: Partial<ClientSettings>;
}

type FunctionContext = Context &
  Partial<CredentialsContext> & { cloudopsClients?: Clients<object, Closable, unknown> };

/** The clients clientsMiddleware made for this invocation, with the operations of its kit. */
export function clientsOf<
  M extends object,
  C extends Closable = ObservabilityClient,
  B = ObservabilityBackend,
>(context: Context): Clients<M, C, B> {
  const clients = (context as FunctionContext).cloudopsClients;
  if (!clients) throw new ConfigError('clientsMiddleware is not in front of this handler');
  return clients as Clients<M, C, B>;
}

/**
 * The middy middlewares that connect a function, for `.use()`: the secrets (read through
 * lib/credentials' middleware, cached, refreshed on a 401), the clients of each invocation
 * (read them with clientsOf; closed after it), and the "not configured yet" answer while a
 * secret still holds its deploy-time placeholder. Fails at creation (cold start), naming the
 * variables, when a needed API has no credentials.
 */
export function clientsMiddleware<M extends object, C extends Closable, B>(
  options: FunctionConnectionOptions<M, C, B>,
): MiddlewareObj<unknown, unknown, Error, Context>[] {
  const { config, needs } = options;
  const secretIds = {
    management: needs.management ? config.CLOUDOPS_KEY_SECRET_ID : undefined,
    observability: needs.observability ? config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID : undefined,
  };
  const fromEnv = envCredentials(config);
  const missing: string[] = [];
  if (needs.management && !secretIds.management && !fromEnv.management)
    missing.push(`${ENV.keySecretId} (or ${ENV.keyId} and ${ENV.keySecret})`);
  if (needs.observability && !secretIds.observability && !fromEnv.observability)
    missing.push(`${ENV.observabilityTokenSecretId} (or ${ENV.observabilityToken})`);
  if (missing.length > 0) {
    throw new ConfigError(`missing configuration: set ${missing.join(', ')}`);
  }

  const close = (request: Request<unknown, unknown, Error, Context>) => {
    (request.context as FunctionContext).cloudopsClients?.close();
  };
  const clients: MiddlewareObj<unknown, unknown, Error, Context> = {
    name: 'clientsMiddleware',
    before: function clientsBefore(request) {
      const context = request.context as FunctionContext;
      const loaded = context.credentials;
      // Clients per invocation: the providers may be new after a rotation.
      context.cloudopsClients = createClients(
        {
          ...clientSettings(
            config,
            {
              management: needs.management ? (loaded?.management ?? fromEnv.management) : undefined,
              observability: needs.observability
                ? (loaded?.observability ?? fromEnv.observability)
                : undefined,
            },
            options.logger,
          ),
          ...options.overrides,
        },
        options.kit,
      );
    },
    after: close,
    onError: close,
  };
  const chain: MiddlewareObj<unknown, unknown, Error, Context>[] = [
    notConfiguredMiddleware<unknown>({
      logger: options.logger ?? silentLogger,
      response: NOT_CONFIGURED_RESPONSE,
    }),
  ];
  if (secretIds.management || secretIds.observability) {
    chain.push(
      credentialsMiddleware({
        client: options.secretsManager ?? new SecretsManagerClient({}),
        secrets: secretIds,
      }),
    );
  }
  chain.push(clients);
  return chain;
}

/**
 * What a function answers while its secret holds the placeholder. An SQS handler's partial
 * batch response without `batchItemFailures` counts as success, so nothing is retried into a
 * dead-letter queue either.
 */
export const NOT_CONFIGURED_RESPONSE = { status: 'not-configured' } as const;
