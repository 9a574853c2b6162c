/**
 * provision-alerts Lambda, fed by an SQS queue that EventBridge rules fill with `Dashboard
 * Synced` and `Alert Provision Requested` events. Thin: settings from env, clients from
 * functions/connect.ts (credentials from Secrets Manager, or values in env; in open-source mode
 * only the observability token is read), the newest event version per owner in DynamoDB, the
 * work in lib/alerts. Each record fails alone through the partial batch response (the event
 * source mapping needs ReportBatchItemFailures).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context, SQSBatchResponse } from 'aws-lambda';
import * as z from 'zod';
import type { ObservabilityBackend } from '../../lib/api';
import type { Clock } from '../../lib/api/clock';
import type { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import {
  createAlertProvisioner,
  DynamoVersionStore,
  KeyedMutex,
  provisionBatch,
  versionScope,
  type VersionStore,
} from '../../lib/alerts';
import { primaryServiceId, readConnectionEnv, requiredConnectionSettings } from '../../lib/config';
import { ConfigError } from '../../lib/errors';
import { readEventTrust, trustedRecords } from '../../lib/events';
import { parseOrThrow } from '../../lib/format-issues';
import { createLogger, type Logger } from '../../lib/log';
import { clientsMiddleware, clientsOf } from '../connect';
import { deadlineFrom, lazyHandler, middySignal, type Deadline } from '../runtime';
import { readProvisionAlertsEnv } from './config';

export interface ProvisionAlertsHandlerOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  secretsManager?: SecretsManagerClient;
  /** Client for the version table (CLOUDOPS_ALERTS_VERSION_TABLE). */
  dynamo?: DynamoDBClient;
  /** A ready version store (tests): the table setting is not read. */
  versions?: VersionStore;
  /** A ready backend (tests, the sandbox): connection settings and credentials are not read. */
  backend?: ObservabilityBackend;
  logger?: Logger;
  /** The management client's clock and limiters (a bench drives a fake clock). */
  clock?: Clock;
  limiters?: RateLimiterRegistry;
  /** The invocation's deadline (a bench puts it on its fake clock); default deadlineFrom. */
  deadline?: (context: Context, signal?: AbortSignal) => Pick<Deadline, 'signal'>;
}

const sqsEvent = z.object({
  Records: z.array(
    z.looseObject({
      messageId: z.string().min(1),
      body: z.string(),
      attributes: z.looseObject({ ApproximateReceiveCount: z.string().optional() }).optional(),
    }),
  ),
});

export function createHandler(options: ProvisionAlertsHandlerOptions = {}) {
  const mode = readConnectionEnv(options.env).CLOUDOPS_OBSERVABILITY_MODE;
  const managed = mode === 'managed';
  const config = readConnectionEnv(
    options.env,
    options.backend ? [] : requiredConnectionSettings(mode, { observability: true }),
  );
  const { CLOUDOPS_ALERTS_VERSION_TABLE: table } = readProvisionAlertsEnv(options.env);
  const trust = readEventTrust(options.env);
  if (!options.versions && !table) {
    throw new ConfigError('missing configuration: set CLOUDOPS_ALERTS_VERSION_TABLE');
  }
  const logger =
    options.logger ??
    createLogger({ level: config.CLOUDOPS_LOG_LEVEL, fields: { function: 'provision-alerts' } });
  const versions =
    options.versions ??
    new DynamoVersionStore({ client: options.dynamo ?? new DynamoDBClient({}), tableName: table! });
  // One per instance: copies of an event in one batch or overlapping calls never race here.
  const mutex = new KeyedMutex();
  // Alerts belong to one service: the first of the list (as for dashboards).
  const serviceId = primaryServiceId(config);
  const scope = versionScope({
    mode: options.backend?.mode ?? config.CLOUDOPS_OBSERVABILITY_MODE,
    serviceId,
    observabilityUrl: config.CLOUDOPS_OBSERVABILITY_URL,
  });

  const handler = middy<unknown, SQSBatchResponse, Error, Context>();
  if (!options.backend) {
    handler.use(
      clientsMiddleware({
        config,
        needs: { observability: !managed, management: managed },
        secretsManager: options.secretsManager,
        logger,
        overrides: { clock: options.clock, limiters: options.limiters },
      }),
    );
  }
  return handler.handler(
    async function provisionAlerts(event, context, opts): Promise<SQSBatchResponse> {
      // Not an SQS batch at all: nothing to report per record, so the invocation fails.
      const batch = parseOrThrow(sqsEvent, event, 'lambda event', 'not an SQS event');
      const provisioner = createAlertProvisioner({
        backend: options.backend ?? clientsOf(context).backend(serviceId),
        logger,
        mutex,
        versions,
        versionScope: scope,
      });
      const records = trustedRecords(batch.Records, trust, logger).map((r) => ({
        messageId: r.messageId,
        body: r.body,
        receiveCount: Number(r.attributes?.ApproximateReceiveCount ?? '1') || 1,
      }));
      const signal = (options.deadline ?? ((c, s) => deadlineFrom(c, { signal: s })))(
        context,
        middySignal(opts),
      ).signal;
      const outcome = await provisionBatch(records, provisioner, { logger, signal });
      logger.info('batch done', {
        records: outcome.records.length,
        failed: outcome.batchItemFailures.length,
      });
      return { batchItemFailures: outcome.batchItemFailures };
    },
  );
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createHandler());
