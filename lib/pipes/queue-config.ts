/**
 * The watchdog queue's settings from env, apart from lib/pipes/config.ts so the scheduled
 * function (which only enqueues) reads them without bundling the watch engine's settings.
 */
import * as z from 'zod/mini';
import { coercedNumber, safeInteger, url } from '../schemas/builders';
import { readConnectionEnv, readEnv, type ConnectionEnv } from '../config';
import { ConfigError } from '../errors';

/**
 * The watchdog's env names as typed values (the CDK side writes them through these, so a
 * rename fails `tsc`). Fan-out: the scheduled function needs `queueUrl` (SendMessage), the
 * consumer the same `queueUrl` (SendMessage: it sends back what its deadline cut off).
 */
export const WATCHDOG_ENV = {
  queueUrl: 'CLOUDOPS_WATCHDOG_QUEUE_URL',
  servicesPerMessage: 'CLOUDOPS_WATCHDOG_SERVICES_PER_MESSAGE',
} as const;

export const watchdogQueueEnv = z.object({
  /** SQS queue of service batches: the scheduled function enqueues, the consumer checks. */
  [WATCHDOG_ENV.queueUrl]: z.optional(url()),
  /** Services per message; default: the management rate limit's requests per window. */
  [WATCHDOG_ENV.servicesPerMessage]: z.optional(
    coercedNumber().check(safeInteger(), z.positive(), z.lte(1000)),
  ),
});

export interface EnqueueSettings {
  organizationId: string;
  serviceIds: string[];
  queueUrl: string;
  servicesPerMessage: number;
  logLevel: ConnectionEnv['CLOUDOPS_LOG_LEVEL'];
}

/**
 * The scheduled function's settings: organization, services and queue are required, each
 * missing one named; `env` defaults to the process environment (read inside lib/config.ts).
 */
export function readEnqueueSettings(env?: Record<string, string | undefined>): EnqueueSettings {
  const connection = readConnectionEnv(env, ['CLOUDOPS_ORGANIZATION_ID', 'CLOUDOPS_SERVICE_ID']);
  const e = readEnv(watchdogQueueEnv, env);
  const queueUrl = e[WATCHDOG_ENV.queueUrl];
  if (!queueUrl) throw new ConfigError(`missing configuration: set ${WATCHDOG_ENV.queueUrl}`);
  return {
    organizationId: connection.CLOUDOPS_ORGANIZATION_ID!,
    serviceIds: connection.CLOUDOPS_SERVICE_ID!,
    queueUrl,
    // One message = one rate-limit window of listings: a consumer finishes it within a window.
    servicesPerMessage:
      e[WATCHDOG_ENV.servicesPerMessage] ?? connection.CLOUDOPS_MANAGEMENT_RATE_LIMIT.limit,
    logLevel: connection.CLOUDOPS_LOG_LEVEL,
  };
}
