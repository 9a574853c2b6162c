/**
 * The pipe watchdog consumer's function entry: what functions/pipe-watchdog/consumer.ts makes
 * once per container (settings, the store, the logger, the notifiers with their secrets cached
 * between runs, the fan-out queue) and the work each invocation does. The scheduled function
 * only enqueues and has its own, smaller entry (./enqueue-entry.ts).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Clock } from '../api/clock';
import type { ClientKit } from '../api/kit';
import { metricsOperations } from '../api/management/metrics';
import { pipeOperations } from '../api/management/pipes';
import type { RateLimiterRegistry } from '../api/rate-limiter';
import { ConfigError } from '../errors';
import { createLogger, withLogContext } from '../log';
import { DynamoWatchStore } from '../watch/dynamo-store';
import { createNotifiers } from '../watch/notifiers/set';
import type { Notifier, NotifierClients } from '../watch/notifiers/types';
import { WATCH_TABLE_VARIABLE } from '../watch/table-setting';
import { readWatchdogSettings } from './config';
import { consumeBatch, parseBatchMessage } from './fanout';
import type { MetricsSink } from './metrics';
import { WATCHDOG_ENV } from './queue-config';
import { watchdogClientSettings } from './run';
import { sqsBatchQueue } from './sqs-queue';
import type { PipeApi } from './watchdog';
import { parseWatchdogConfig } from './watchdog-config';

export interface WatchdogEntryOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  dynamo?: DynamoDBClient;
  /** Reads the key secret and the notifiers' secrets. */
  secretsManager?: SecretsManagerClient;
  sqs?: SQSClient;
  aws?: Omit<NotifierClients, 'secretsManager'>;
  /** Epoch ms (the store's and the notices' time). */
  now?: () => number;
  /** @default one EMF line on stdout (CloudWatch extracts the metrics from the log) */
  metricsSink?: MetricsSink;
  /** The management client's clock and limiters (a bench drives a fake clock). */
  clock?: Clock;
  limiters?: RateLimiterRegistry;
}

/** The management calls the consumer makes: pipes and their metrics. */
const WATCHDOG_KIT: ClientKit<PipeApi> = {
  management: (connection) => ({
    ...pipeOperations(connection),
    ...metricsOperations(connection),
  }),
};

export function watchdogEntry(options: WatchdogEntryOptions = {}) {
  const settings = readWatchdogSettings(options.env);
  if (!settings.tableName)
    throw new ConfigError(`missing configuration: set ${WATCH_TABLE_VARIABLE}`);
  const store = new DynamoWatchStore({
    client: options.dynamo ?? new DynamoDBClient({}),
    tableName: settings.tableName,
  });
  const logger = createLogger({
    level: settings.connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'pipe-watchdog' },
  });
  const secretsManager = options.secretsManager ?? new SecretsManagerClient({});
  // Requeuing what the deadline cut off needs the queue the consumer is fed from.
  if (!settings.queueUrl)
    throw new ConfigError(`missing configuration: set ${WATCHDOG_ENV.queueUrl}`);
  const queue = sqsBatchQueue({
    client: options.sqs ?? new SQSClient({}),
    queueUrl: settings.queueUrl,
  });
  const config = parseWatchdogConfig(settings.watchdog);
  const now = options.now ?? Date.now;
  const metricsSink =
    options.metricsSink ?? ((line: string) => void process.stdout.write(line + '\n'));
  let notifiers: Notifier[] | undefined;
  const deps = (api: PipeApi) => ({
    api,
    store,
    notifiers: (notifiers ??= createNotifiers(settings.notifiers, {
      ...options.aws,
      secretsManager,
    })),
    now,
    logger,
    metricsSink,
  });

  return {
    logger,
    /** For functions/connect.ts's clientsMiddleware: the watchdog's own key, read when needed. */
    connection: {
      config: settings.connection,
      needs: { management: true, observability: false },
      kit: WATCHDOG_KIT,
      secretsManager,
      logger,
      overrides: {
        ...watchdogClientSettings(settings),
        clock: options.clock,
        limiters: options.limiters,
      },
    },
    /**
     * The consumer's work on one SQS batch: each message's services, until `stop` aborts (the
     * Lambda's deadline); untouched and failed messages are reported for redelivery.
     */
    consumer() {
      return async function consume(
        records: readonly { messageId: string; body: string }[],
        api: PipeApi,
        stop: AbortSignal,
      ): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
        const failures: { itemIdentifier: string }[] = [];
        for (const record of records) {
          await withLogContext({ messageId: record.messageId }, async () => {
            // Untouched messages go back as they are once the deadline has come.
            if (stop.aborted) return void failures.push({ itemIdentifier: record.messageId });
            try {
              const message = parseBatchMessage(record.body, record.messageId);
              await consumeBatch(config, message, { ...deps(api), queue, stopSignal: stop });
            } catch (error) {
              logger.error('watchdog message failed; SQS will redeliver it', { error });
              failures.push({ itemIdentifier: record.messageId });
            }
          });
        }
        return { batchItemFailures: failures };
      };
    },
  };
}
