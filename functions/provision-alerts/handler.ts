/**
 * provision-alerts Lambda, fed by an SQS queue that EventBridge rules fill with `Dashboard
 * Synced` and `Alert Provision Requested` events. Thin: settings from env, credentials from
 * Secrets Manager through middy (or given in env), the work in lib/alerts. Each record fails
 * alone through the partial batch response (the event source mapping needs
 * ReportBatchItemFailures).
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context, SQSBatchResponse } from 'aws-lambda';
import * as z from 'zod';
import type { ObservabilityBackend } from '../../lib/api';
import {
  backendFromConnection,
  createAlertProvisioner,
  KeyedMutex,
  provisionBatch,
} from '../../lib/alerts';
import { readConnectionEnv } from '../../lib/config';
import {
  credentialsMiddleware,
  staticCredentials,
  type CredentialsContext,
  type ManagementCredentialProvider,
  type ObservabilityCredentialProvider,
} from '../../lib/credentials';
import { ConfigError, ValidationError } from '../../lib/errors';
import { formatIssues } from '../../lib/format-issues';
import { createLogger, type Logger } from '../../lib/log';
import { registerSecret } from '../../lib/redact';
import { managementAuth, observabilityTokenSecret } from '../../lib/schemas';

export interface ProvisionAlertsHandlerOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  secretsManager?: SecretsManagerClient;
  /** A ready backend (tests, the sandbox): connection settings and credentials are not read. */
  backend?: ObservabilityBackend;
  logger?: Logger;
}

const sqsEvent = z.object({
  Records: z.array(z.looseObject({ messageId: z.string().min(1), body: z.string() })),
});

type AlertsContext = Context & Partial<CredentialsContext>;

export function createHandler(options: ProvisionAlertsHandlerOptions = {}) {
  const config = readConnectionEnv(options.env);
  const logger =
    options.logger ??
    createLogger({ level: config.CLOUDOPS_LOG_LEVEL, fields: { function: 'provision-alerts' } });
  // One per instance: copies of an event in one batch or overlapping calls never race here.
  const mutex = new KeyedMutex();
  const connect = options.backend ? () => options.backend! : connector(options, config, logger);
  const handler = middy<unknown, SQSBatchResponse, Error, AlertsContext>();
  const secretId = config.CLOUDOPS_KEY_SECRET_ID;
  if (!options.backend && secretId) {
    handler.use(
      credentialsMiddleware({
        client: options.secretsManager ?? new SecretsManagerClient({}),
        secrets: {
          management: secretId,
          observability: config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID,
        },
      }),
    );
  }
  return handler.handler(async function provisionAlerts(event, context): Promise<SQSBatchResponse> {
    const parsed = sqsEvent.safeParse(event);
    if (!parsed.success) {
      // Not an SQS batch at all: nothing to report per record, so the invocation fails.
      const issues = formatIssues(parsed.error.issues);
      throw new ValidationError(`not an SQS event: ${issues.join('; ')}`, 'lambda event', issues);
    }
    const provisioner = createAlertProvisioner({ backend: connect(context), logger, mutex });
    const outcome = await provisionBatch(parsed.data.Records, provisioner, { logger });
    logger.info('batch done', {
      records: outcome.records.length,
      failed: outcome.batchItemFailures.length,
    });
    return { batchItemFailures: outcome.batchItemFailures };
  });
}

function connector(
  options: ProvisionAlertsHandlerOptions,
  config: ReturnType<typeof readConnectionEnv>,
  logger: Logger,
) {
  let fixedManagement: ManagementCredentialProvider | undefined;
  if (config.CLOUDOPS_KEY_ID && config.CLOUDOPS_KEY_SECRET && !config.CLOUDOPS_KEY_SECRET_ID) {
    registerSecret(config.CLOUDOPS_KEY_SECRET);
    fixedManagement = staticCredentials(
      'CLOUDOPS_KEY_ID',
      {
        organizationId: config.CLOUDOPS_ORGANIZATION_ID,
        keyId: config.CLOUDOPS_KEY_ID,
        keySecret: config.CLOUDOPS_KEY_SECRET,
      },
      managementAuth,
    );
  }
  let fixedToken: ObservabilityCredentialProvider | undefined;
  if (config.CLOUDOPS_OBSERVABILITY_TOKEN) {
    registerSecret(config.CLOUDOPS_OBSERVABILITY_TOKEN);
    fixedToken = staticCredentials(
      'CLOUDOPS_OBSERVABILITY_TOKEN',
      { token: config.CLOUDOPS_OBSERVABILITY_TOKEN },
      observabilityTokenSecret,
    );
  }
  return (context: AlertsContext): ObservabilityBackend => {
    const observability = context.credentials?.observability ?? fixedToken;
    if (!observability) {
      throw new ConfigError(
        'missing configuration: set CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID (or CLOUDOPS_OBSERVABILITY_TOKEN)',
      );
    }
    const management = context.credentials?.management ?? fixedManagement;
    return backendFromConnection(config, { management, observability }, logger);
  };
}

let instance: ReturnType<typeof createHandler> | undefined;

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = (event: unknown, context: Context) =>
  (instance ??= createHandler())(event, context);
