/**
 * The provision-alerts function's wiring and its run (functions/provision-alerts/handler.ts
 * adds middy and the API clients): settings from env, the newest event version per owner in
 * DynamoDB, one mutex per instance, and per invocation one provisioner over its backend. Each
 * record fails alone through the partial batch response (the event source mapping needs
 * ReportBatchItemFailures).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod/mini';
import type { ClientKit } from '../api/kit';
import {
  alertManagementOperations,
  type AlertManagementOperations,
} from '../api/management/alerts';
import { createAlertBackend, type AlertBackend } from '../api/observability-backend';
import { createAlertClient, type AlertClient } from '../api/observability-alerts';
import { ConfigError } from '../errors';
import { readEventTrust, trustedRecords } from '../events/trust';
import { parseOrThrow } from '../format-issues';
import { createLogger, type Logger } from '../log';
import { provisionBatch, type BatchOutcome } from './batch';
import { readObservabilityHome, readProvisionAlertsEnv, type ObservabilityHome } from './config';
import { KeyedMutex } from './mutex';
import { createAlertProvisioner } from './provision';
import type { VersionStore } from './versions';
import { DynamoVersionStore } from './versions-dynamo';

export interface ProvisionEntryOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  /** Client for the version table (CLOUDOPS_ALERTS_VERSION_TABLE). */
  dynamo?: DynamoDBClient;
  /** A ready version store (tests): the table setting is not read. */
  versions?: VersionStore;
  /** A ready backend (tests, the sandbox): connection settings and credentials are not read. */
  backend?: AlertBackend;
  logger?: Logger;
}

/** The alerts of one service and nothing else, in either mode: all a provisioning run calls. */
export const ALERTS_KIT: ClientKit<AlertManagementOperations, AlertClient, AlertBackend> = {
  management: alertManagementOperations,
  observability: { client: createAlertClient, backend: createAlertBackend },
};

export interface ProvisionEntry {
  readonly home: ObservabilityHome;
  /** The operations its clients carry (functions/connect.ts binds them). */
  readonly kit: typeof ALERTS_KIT;
  readonly logger: Logger;
  /** One SQS batch; `signal` aborts before the Lambda's timeout (records not started go back). */
  run(
    event: unknown,
    io: { backend: AlertBackend; signal?: AbortSignal },
  ): Promise<Pick<BatchOutcome, 'batchItemFailures'>>;
}

const sqsEvent = z.lazy(() =>
  z.object({
    Records: z.array(
      z.looseObject({
        messageId: z.string().check(z.minLength(1)),
        body: z.string(),
        attributes: z.optional(z.looseObject({ ApproximateReceiveCount: z.optional(z.string()) })),
      }),
    ),
  }),
);

export function provisionAlertsEntry(options: ProvisionEntryOptions = {}): ProvisionEntry {
  const home = readObservabilityHome(options.env, {
    requireConnection: !options.backend,
    ...(options.backend ? { mode: options.backend.mode } : {}),
  });
  const { CLOUDOPS_ALERTS_VERSION_TABLE: table } = readProvisionAlertsEnv(options.env);
  if (!options.versions && !table) {
    throw new ConfigError('missing configuration: set CLOUDOPS_ALERTS_VERSION_TABLE');
  }
  // Events are taken only from their owners: a forged one is logged and dropped before any write.
  const trust = readEventTrust(options.env);
  const logger =
    options.logger ??
    createLogger({
      level: home.connection.CLOUDOPS_LOG_LEVEL,
      fields: { function: 'provision-alerts' },
    });
  const versions =
    options.versions ??
    new DynamoVersionStore({ client: options.dynamo ?? new DynamoDBClient({}), tableName: table! });
  // One per instance: copies of an event in one batch or overlapping calls never race here.
  const mutex = new KeyedMutex();
  return {
    home,
    kit: ALERTS_KIT,
    logger,
    async run(event, io) {
      // Not an SQS batch at all: nothing to report per record, so the invocation fails.
      const batch = parseOrThrow(sqsEvent, event, 'lambda event', 'not an SQS event');
      const provisioner = createAlertProvisioner({
        backend: io.backend,
        logger,
        mutex,
        versions,
        versionScope: home.scope,
      });
      const records = trustedRecords(batch.Records, trust, logger).map((r) => ({
        messageId: r.messageId,
        body: r.body,
        receiveCount: Number(r.attributes?.ApproximateReceiveCount ?? '1') || 1,
      }));
      const outcome = await provisionBatch(records, provisioner, { logger, signal: io.signal });
      logger.info('batch done', {
        records: outcome.records.length,
        failed: outcome.batchItemFailures.length,
      });
      return { batchItemFailures: outcome.batchItemFailures };
    },
  };
}
