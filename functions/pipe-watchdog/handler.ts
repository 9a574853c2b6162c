/**
 * pipe-watchdog Lambda (scheduled): one watchdog pass. Thin: settings from env, credentials
 * from Secrets Manager through middy (or a key given in env), state in DynamoDB.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  credentialsMiddleware,
  staticCredentials,
  type CredentialsContext,
} from '../../lib/credentials';
import { ConfigError } from '../../lib/errors';
import { createLogger } from '../../lib/log';
import type { NotifierClients } from '../../lib/notify/build';
import { readWatchdogSettings } from '../../lib/pipes/config';
import { DynamoStateStore } from '../../lib/pipes/dynamo-store';
import type { MetricsSink } from '../../lib/pipes/metrics';
import { runWatchdogFromSettings } from '../../lib/pipes/run';
import type { WatchdogError } from '../../lib/pipes/watchdog';
import { managementAuth } from '../../lib/schemas';

export interface PipeWatchdogHandlerOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  dynamo?: DynamoDBClient;
  secretsManager?: SecretsManagerClient;
  aws?: NotifierClients;
  now?: () => number;
  /** @default one EMF line on stdout (CloudWatch extracts the metrics from the log) */
  metricsSink?: MetricsSink;
}

export interface PipeWatchdogSummary {
  checked: number;
  notifications: number;
  errors: WatchdogError[];
}

type WatchdogContext = Context & Partial<CredentialsContext>;

export function createHandler(options: PipeWatchdogHandlerOptions = {}) {
  const settings = readWatchdogSettings(options.env);
  const { connection } = settings;
  if (!settings.tableName)
    throw new ConfigError('missing configuration: set CLOUDOPS_WATCHDOG_TABLE');
  const store = new DynamoStateStore({
    client: options.dynamo ?? new DynamoDBClient({}),
    tableName: settings.tableName,
  });
  const logger = createLogger({
    level: connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'pipe-watchdog' },
  });
  const secretId = connection.CLOUDOPS_KEY_SECRET_ID;
  if (!secretId && !(connection.CLOUDOPS_KEY_ID && connection.CLOUDOPS_KEY_SECRET)) {
    throw new ConfigError(
      'missing configuration: set CLOUDOPS_KEY_SECRET_ID (or CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET)',
    );
  }
  const fixed = secretId
    ? undefined
    : staticCredentials(
        'CLOUDOPS_KEY_ID',
        {
          organizationId: connection.CLOUDOPS_ORGANIZATION_ID,
          keyId: connection.CLOUDOPS_KEY_ID,
          keySecret: connection.CLOUDOPS_KEY_SECRET,
        },
        managementAuth,
      );
  const metricsSink =
    options.metricsSink ?? ((line: string) => void process.stdout.write(line + '\n'));

  const handler = middy<unknown, PipeWatchdogSummary, Error, WatchdogContext>();
  if (secretId) {
    handler.use(
      credentialsMiddleware({
        client: options.secretsManager ?? new SecretsManagerClient({}),
        secrets: { management: secretId },
      }),
    );
  }
  return handler.handler(
    async function pipeWatchdog(_event, context): Promise<PipeWatchdogSummary> {
      const credentials = context.credentials?.management ?? fixed!;
      const result = await runWatchdogFromSettings(settings, {
        credentials,
        store,
        aws: options.aws,
        now: options.now,
        logger,
        metricsSink,
      });
      return {
        checked: result.checked,
        notifications: result.notifications.length,
        errors: result.errors,
      };
    },
  );
}

let instance: ReturnType<typeof createHandler> | undefined;

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = (event: unknown, context: Context) =>
  (instance ??= createHandler())(event, context);
