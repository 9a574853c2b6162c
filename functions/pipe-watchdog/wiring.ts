/**
 * What both pipe-watchdog entry points make once per container: settings, the state store,
 * the logger, the notifiers (their Slack / webhook secrets cached between runs), the queue.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../../lib/api/clock';
import type { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { ConfigError } from '../../lib/errors';
import { createLogger } from '../../lib/log';
import { createNotifiers, type NotifierClients } from '../../lib/notify/build';
import { readWatchdogSettings, WATCHDOG_ENV } from '../../lib/pipes/config';
import { DynamoStateStore } from '../../lib/pipes/dynamo-store';
import type { MetricsSink } from '../../lib/pipes/metrics';
import { watchdogClientSettings } from '../../lib/pipes/run';
import { sqsBatchQueue } from '../../lib/pipes/sqs-queue';
import { clientsMiddleware } from '../connect';

export interface PipeWatchdogHandlerOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  dynamo?: DynamoDBClient;
  /** Reads the key secret and the Slack / webhook secrets. */
  secretsManager?: SecretsManagerClient;
  sqs?: SQSClient;
  aws?: Omit<NotifierClients, 'secretsManager'>;
  /** Epoch ms (the store's and the notifications' time). */
  now?: () => number;
  /** @default one EMF line on stdout (CloudWatch extracts the metrics from the log) */
  metricsSink?: MetricsSink;
  /** The management client's clock and limiters (a bench drives a fake clock). */
  clock?: Clock;
  limiters?: RateLimiterRegistry;
}

export function watchdogWiring(options: PipeWatchdogHandlerOptions) {
  const settings = readWatchdogSettings(options.env);
  if (!settings.tableName)
    throw new ConfigError(`missing configuration: set ${WATCHDOG_ENV.table}`);
  const store = new DynamoStateStore({
    client: options.dynamo ?? new DynamoDBClient({}),
    tableName: settings.tableName,
  });
  const logger = createLogger({
    level: settings.connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'pipe-watchdog' },
  });
  const secretsManager = options.secretsManager ?? new SecretsManagerClient({});
  const queue = settings.queueUrl
    ? sqsBatchQueue({ client: options.sqs ?? new SQSClient({}), queueUrl: settings.queueUrl })
    : undefined;
  return {
    settings,
    store,
    logger,
    queue,
    now: options.now ?? Date.now,
    notifiers: () => createNotifiers(settings.notifiers, { ...options.aws, secretsManager }),
    metricsSink: options.metricsSink ?? ((line: string) => void process.stdout.write(line + '\n')),
    clients: () =>
      clientsMiddleware({
        config: settings.connection,
        needs: { management: true, observability: false },
        secretsManager,
        logger,
        overrides: {
          ...watchdogClientSettings(settings),
          clock: options.clock,
          limiters: options.limiters,
        },
      }),
  };
}
