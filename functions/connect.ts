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
import type { ConnectionEnv } from '../lib/config';
import { credentialsMiddleware, type CredentialsContext } from '../lib/credentials';
import { ConfigError } from '../lib/errors';
import type { Logger } from '../lib/log';

export interface FunctionConnectionOptions {
  config: ConnectionEnv;
  /** The APIs this function calls: only their secrets are read (and must be granted). */
  needs: { management: boolean; observability: boolean };
  /** @default a client for the function's region */
  secretsManager?: SecretsManagerClient;
  logger?: Logger;
  /** Settings beyond the env contract (e.g. the watchdog's per-call deadline). */
  overrides?: Partial<ClientSettings>;
}

type FunctionContext = Context & Partial<CredentialsContext> & { cloudopsClients?: Clients };

/** The clients clientsMiddleware made for this invocation. */
export function clientsOf(context: Context): Clients {
  const clients = (context as FunctionContext).cloudopsClients;
  if (!clients) throw new ConfigError('clientsMiddleware is not in front of this handler');
  return clients;
}

/**
 * Middy middleware: makes the clients of each invocation (read them with clientsOf) and closes
 * them after it. Fails at creation (cold start), naming the variables, when a needed API has no
 * credentials.
 */
export function clientsMiddleware(
  options: FunctionConnectionOptions,
): MiddlewareObj<unknown, unknown, Error, Context> {
  const { config, needs } = options;
  const secretIds = {
    management: needs.management ? config.CLOUDOPS_KEY_SECRET_ID : undefined,
    observability: needs.observability ? config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID : undefined,
  };
  const fromEnv = envCredentials(config);
  const missing: string[] = [];
  if (needs.management && !secretIds.management && !fromEnv.management)
    missing.push('CLOUDOPS_KEY_SECRET_ID (or CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET)');
  if (needs.observability && !secretIds.observability && !fromEnv.observability)
    missing.push('CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID (or CLOUDOPS_OBSERVABILITY_TOKEN)');
  if (missing.length > 0) {
    throw new ConfigError(`missing configuration: set ${missing.join(', ')}`);
  }
  const secrets =
    secretIds.management || secretIds.observability
      ? credentialsMiddleware({
          client: options.secretsManager ?? new SecretsManagerClient({}),
          secrets: secretIds,
        })
      : undefined;

  const close = (request: Request<unknown, unknown, Error, Context>) => {
    (request.context as FunctionContext).cloudopsClients?.close();
  };
  return {
    name: 'clientsMiddleware',
    async before(request) {
      await secrets?.before?.(request as never);
      const context = request.context as FunctionContext;
      const loaded = context.credentials;
      // Clients per invocation: the providers may be new after a rotation.
      context.cloudopsClients = createClients({
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
      });
    },
    after: close,
    onError: close,
  };
}
