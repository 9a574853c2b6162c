/**
 * sync-dashboards Lambda: S3 object events under the dashboards prefix apply the files; the
 * schedule repairs drift (or only reports it, CLOUDOPS_DASHBOARDS_SCHEDULE_MODE=report).
 * Thin: settings from env, clients from functions/connect.ts, the logic in lib/dashboards.
 * In open-source mode only the observability token is read: no management key is needed.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { versionScope } from '../../lib/alerts/versions';
import { DynamoVersionStore } from '../../lib/alerts/versions-dynamo';
import type { Clock } from '../../lib/api/clock';
import type { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { primaryServiceId, readConnectionEnv, requiredConnectionSettings } from '../../lib/config';
import { runSyncFunction, type SyncFunctionSummary } from '../../lib/dashboards/function-run';
import { createLogger } from '../../lib/log';
import type { NotifierClients } from '../../lib/watch/notifiers/types';
import { watchFromEnv } from '../../lib/watch/settings';
import { clientsMiddleware, clientsOf } from '../connect';
import { deadlineFrom, lazyHandler, middySignal } from '../runtime';
import { readSyncDashboardsSettings } from './config';

export interface SyncDashboardsHandlerOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  s3?: S3Client;
  eventBridge?: EventBridgeClient;
  secretsManager?: SecretsManagerClient;
  /** Client for provision-alerts' version table and the drift record (watchdog table). */
  dynamo?: DynamoDBClient;
  /** The drift notifiers' AWS clients (SNS, EventBridge). */
  notify?: Omit<NotifierClients, 'secretsManager'>;
  now?: () => Date;
  /** The API clients' clock and limiters (a bench drives a fake clock). */
  clock?: Clock;
  limiters?: RateLimiterRegistry;
}

export function createHandler(options: SyncDashboardsHandlerOptions = {}) {
  const settings = readSyncDashboardsSettings(options.env);
  const mode = readConnectionEnv(options.env).CLOUDOPS_OBSERVABILITY_MODE;
  const managed = mode === 'managed';
  const connection = readConnectionEnv(
    options.env,
    requiredConnectionSettings(mode, { observability: true }),
  );
  const logger = createLogger({
    level: connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'sync-dashboards' },
  });
  const s3 = options.s3 ?? new S3Client({});
  const eventBridge = options.eventBridge ?? new EventBridgeClient({});
  // The same store and key scope as provision-alerts (its handler), read to skip the alert list.
  const alertVersions = settings.alertVersionTable
    ? {
        store: new DynamoVersionStore({
          client: options.dynamo ?? new DynamoDBClient({}),
          tableName: settings.alertVersionTable,
        }),
        scope: versionScope({
          mode: connection.CLOUDOPS_OBSERVABILITY_MODE,
          serviceId: primaryServiceId(connection),
          observabilityUrl: connection.CLOUDOPS_OBSERVABILITY_URL,
        }),
      }
    : undefined;

  const drift = driftWiring(options, settings.scheduleMode);

  return middy<unknown, SyncFunctionSummary, Error, Context>()
    .use(
      clientsMiddleware({
        config: connection,
        needs: { observability: !managed, management: managed },
        secretsManager: options.secretsManager,
        logger,
        overrides: { clock: options.clock, limiters: options.limiters },
      }),
    )
    .handler(function syncDashboards(event, context, opts): Promise<SyncFunctionSummary> {
      return runSyncFunction(event, {
        // Writes stop before the Lambda's timeout; the next run finishes what is left.
        signal: deadlineFrom(context, { signal: middySignal(opts) }).signal,
        settings,
        s3,
        eventBridge,
        // Dashboards of the first configured service (managed mode); open-source has no service.
        backend: clientsOf(context).backend(primaryServiceId(connection)),
        service: primaryServiceId(connection),
        logger,
        now: options.now,
        ...(alertVersions ? { alertVersions } : {}),
        ...(drift ? { drift } : {}),
      });
    });
}

/**
 * Report mode tells drift through lib/watch (its table, notifiers and policy from the watch
 * variables the stack sets); without a table or a notifier it only logs.
 */
function driftWiring(options: SyncDashboardsHandlerOptions, mode: 'repair' | 'report') {
  if (mode !== 'report') return undefined;
  const watch = watchFromEnv(options.env, {
    ...options.notify,
    ...(options.secretsManager ? { secretsManager: options.secretsManager } : {}),
    dynamo: options.dynamo ?? new DynamoDBClient({}),
  });
  const now = options.now;
  return watch && { ...watch, ...(now ? { now: () => now().getTime() } : {}) };
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createHandler());
