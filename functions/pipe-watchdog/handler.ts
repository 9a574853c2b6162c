/**
 * pipe-watchdog Lambda (scheduled): one watchdog pass. Thin: settings from env, the client from
 * functions/connect.ts, notifiers made once per container (their Slack / webhook secrets are
 * read from Secrets Manager and cached), state in DynamoDB.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { ConfigError } from '../../lib/errors';
import { createLogger } from '../../lib/log';
import { createNotifiers, type NotifierClients } from '../../lib/notify/build';
import { readWatchdogSettings } from '../../lib/pipes/config';
import { DynamoStateStore } from '../../lib/pipes/dynamo-store';
import type { MetricsSink } from '../../lib/pipes/metrics';
import { runWatchdogFromSettings, watchdogClientSettings } from '../../lib/pipes/run';
import type { WatchdogError } from '../../lib/pipes/watchdog';
import { clientsMiddleware, clientsOf } from '../connect';

export interface PipeWatchdogHandlerOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  dynamo?: DynamoDBClient;
  /** Reads the key secret and the Slack / webhook secrets. */
  secretsManager?: SecretsManagerClient;
  aws?: Omit<NotifierClients, 'secretsManager'>;
  now?: () => number;
  /** @default one EMF line on stdout (CloudWatch extracts the metrics from the log) */
  metricsSink?: MetricsSink;
}

export interface PipeWatchdogSummary {
  checked: number;
  notifications: number;
  errors: WatchdogError[];
}

export function createHandler(options: PipeWatchdogHandlerOptions = {}) {
  const settings = readWatchdogSettings(options.env);
  if (!settings.tableName)
    throw new ConfigError('missing configuration: set CLOUDOPS_WATCHDOG_TABLE');
  const store = new DynamoStateStore({
    client: options.dynamo ?? new DynamoDBClient({}),
    tableName: settings.tableName,
  });
  const logger = createLogger({
    level: settings.connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'pipe-watchdog' },
  });
  const secretsManager = options.secretsManager ?? new SecretsManagerClient({});
  const notifiers = createNotifiers(settings.notifiers, { ...options.aws, secretsManager });
  const metricsSink =
    options.metricsSink ?? ((line: string) => void process.stdout.write(line + '\n'));

  return middy<unknown, PipeWatchdogSummary, Error, Context>()
    .use(
      clientsMiddleware({
        config: settings.connection,
        needs: { management: true, observability: false },
        secretsManager,
        logger,
        overrides: watchdogClientSettings(settings),
      }),
    )
    .handler(async function pipeWatchdog(_event, context): Promise<PipeWatchdogSummary> {
      const result = await runWatchdogFromSettings(settings, {
        api: clientsOf(context).requireManagement(),
        store,
        notifiers,
        now: options.now,
        logger,
        metricsSink,
      });
      return {
        checked: result.checked,
        notifications: result.notifications.length,
        errors: result.errors,
      };
    });
}

let instance: ReturnType<typeof createHandler> | undefined;

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = (event: unknown, context: Context) =>
  (instance ??= createHandler())(event, context);
