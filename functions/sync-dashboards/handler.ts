/**
 * sync-dashboards Lambda: S3 object events under the dashboards prefix apply the files; the
 * schedule repairs drift (or only reports it, CLOUDOPS_DASHBOARDS_SCHEDULE_MODE=report).
 * Thin: settings from env, credentials from Secrets Manager through middy (or values in env),
 * the logic in lib/dashboards.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
  type ObservabilityBackend,
} from '../../lib/api';
import { readConnectionEnv, type ConnectionEnv } from '../../lib/config';
import {
  credentialsMiddleware,
  staticCredentials,
  type CredentialsContext,
  type ManagementCredentialProvider,
  type ObservabilityCredentialProvider,
} from '../../lib/credentials';
import { runSyncFunction, type SyncFunctionSummary } from '../../lib/dashboards/function-run';
import { ConfigError } from '../../lib/errors';
import { createLogger } from '../../lib/log';
import { managementAuth, observabilityTokenSecret } from '../../lib/schemas';
import { readSyncDashboardsSettings } from './config';

export interface SyncDashboardsHandlerOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  s3?: S3Client;
  eventBridge?: EventBridgeClient;
  secretsManager?: SecretsManagerClient;
  now?: () => Date;
}

type SyncContext = Context & Partial<CredentialsContext>;

export function createHandler(options: SyncDashboardsHandlerOptions = {}) {
  const settings = readSyncDashboardsSettings(options.env);
  const connection = readConnectionEnv(options.env, ['CLOUDOPS_OBSERVABILITY_URL']);
  const managed = connection.CLOUDOPS_OBSERVABILITY_MODE === 'managed';
  if (managed && !(connection.CLOUDOPS_API_URL && connection.CLOUDOPS_SERVICE_ID)) {
    throw new ConfigError(
      'missing configuration: set CLOUDOPS_API_URL and CLOUDOPS_SERVICE_ID (managed mode)',
    );
  }
  const logger = createLogger({
    level: connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'sync-dashboards' },
  });
  const s3 = options.s3 ?? new S3Client({});
  const eventBridge = options.eventBridge ?? new EventBridgeClient({});
  const fixed = staticProviders(connection);
  const keySecretId = connection.CLOUDOPS_KEY_SECRET_ID;

  const handler = middy<unknown, SyncFunctionSummary, Error, SyncContext>();
  if (keySecretId) {
    handler.use(
      credentialsMiddleware({
        client: options.secretsManager ?? new SecretsManagerClient({}),
        secrets: {
          management: keySecretId,
          observability: connection.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID,
        },
      }),
    );
  }
  return handler.handler(
    async function syncDashboards(event, context): Promise<SyncFunctionSummary> {
      const management = context.credentials?.management ?? fixed.management;
      const observability = context.credentials?.observability ?? fixed.observability;
      if (!observability) {
        throw new ConfigError(
          'missing configuration: set CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID or CLOUDOPS_OBSERVABILITY_TOKEN',
        );
      }
      if (managed && !management) {
        throw new ConfigError(
          'missing configuration: set CLOUDOPS_KEY_SECRET_ID (or CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET)',
        );
      }
      // Clients per invocation: the credential providers may be new after a rotation.
      const { backend, close } = createBackend(connection, management, observability);
      try {
        return await runSyncFunction(event, {
          settings,
          s3,
          eventBridge,
          backend,
          logger,
          now: options.now,
        });
      } finally {
        close();
      }
    },
  );
}

function staticProviders(c: ConnectionEnv) {
  return {
    management:
      c.CLOUDOPS_KEY_ID && c.CLOUDOPS_KEY_SECRET
        ? staticCredentials(
            'CLOUDOPS_KEY_ID',
            {
              organizationId: c.CLOUDOPS_ORGANIZATION_ID,
              keyId: c.CLOUDOPS_KEY_ID,
              keySecret: c.CLOUDOPS_KEY_SECRET,
            },
            managementAuth,
          )
        : undefined,
    observability: c.CLOUDOPS_OBSERVABILITY_TOKEN
      ? staticCredentials(
          'CLOUDOPS_OBSERVABILITY_TOKEN',
          { token: c.CLOUDOPS_OBSERVABILITY_TOKEN },
          observabilityTokenSecret,
        )
      : undefined,
  };
}

function createBackend(
  c: ConnectionEnv,
  management: ManagementCredentialProvider | undefined,
  observability: ObservabilityCredentialProvider,
): { backend: ObservabilityBackend; close: () => void } {
  const obs = createObservabilityClient({
    baseUrl: c.CLOUDOPS_OBSERVABILITY_URL!,
    credentials: observability,
    rateLimit: c.CLOUDOPS_OBSERVABILITY_RATE_LIMIT,
    timeoutMs: c.CLOUDOPS_REQUEST_TIMEOUT_MS,
  });
  if (c.CLOUDOPS_OBSERVABILITY_MODE === 'open-source') {
    return {
      backend: createObservabilityBackend({ mode: 'open-source', observability: obs }),
      close: () => obs.close(),
    };
  }
  const mgmt = createManagementClient({
    baseUrl: c.CLOUDOPS_API_URL!,
    credentials: management!,
    rateLimit: c.CLOUDOPS_MANAGEMENT_RATE_LIMIT,
    timeoutMs: c.CLOUDOPS_REQUEST_TIMEOUT_MS,
  });
  const backend = createObservabilityBackend({
    mode: 'managed',
    management: mgmt,
    observability: obs,
    serviceId: c.CLOUDOPS_SERVICE_ID![0],
  });
  return {
    backend,
    close: () => {
      mgmt.close();
      obs.close();
    },
  };
}

let instance: ReturnType<typeof createHandler> | undefined;

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = (event: unknown, context: Context) =>
  (instance ??= createHandler())(event, context);
