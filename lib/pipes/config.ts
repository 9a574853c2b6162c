/**
 * The watchdog's settings from env (the function and the CLI share them). Parsed by readEnv
 * from lib/config.ts, so every bad variable is named and no value is echoed.
 */
import * as z from 'zod';
import { envFlag, envList, readConnectionEnv, readEnv, type ConnectionEnv } from '../config';
import { ConfigError } from '../errors';
import type { SecretSource } from '../notify/secrets';
import type { NotifierSettings } from '../notify/settings';

export type { NotifierSettings } from '../notify/settings';
import { registerSecret } from '../redact';
import type { WatchdogPolicyInput } from './decide';
import type { WatchdogConfigInput } from './watchdog';

const count = z.coerce.number().int().positive();
const minutes = z.coerce
  .number()
  .positive()
  .transform((m) => Math.round(m * 60_000));

/**
 * The watchdog's env names as typed values (the CDK side writes them through these, so a
 * rename fails `tsc`). Fan-out: the scheduled function needs `queueUrl` (SendMessage), the
 * consumer the same `queueUrl` (SendMessage: it sends back what its deadline cut off).
 */
export const WATCHDOG_ENV = {
  table: 'CLOUDOPS_WATCHDOG_TABLE',
  queueUrl: 'CLOUDOPS_WATCHDOG_QUEUE_URL',
  servicesPerMessage: 'CLOUDOPS_WATCHDOG_SERVICES_PER_MESSAGE',
} as const;

export const watchdogEnv = z.object({
  /**
   * SQS queue of service batches. Set: the scheduled run only enqueues, the consumer
   * (functions/pipe-watchdog/consumer.ts) checks; unset: the scheduled run checks everything.
   */
  [WATCHDOG_ENV.queueUrl]: z.url().optional(),
  /** Services per message; default: the management rate limit's requests per window. */
  [WATCHDOG_ENV.servicesPerMessage]: z.coerce.number().int().positive().max(1000).optional(),
  /** DynamoDB table (the function); the CLI uses a local file instead. */
  CLOUDOPS_WATCHDOG_TABLE: z.string().min(1).optional(),
  CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: z
    .string()
    .startsWith('arn:', 'expected an SNS topic ARN')
    .optional(),
  /**
   * Secret `{ "url": ... }` holding the Slack incoming-webhook URL (which contains its own
   * token): read at run time, cached, re-read when Slack rejects it. The deployed function uses this.
   */
  CLOUDOPS_WATCHDOG_SLACK_SECRET_ID: z.string().min(1).optional(),
  /** Secret `{ "url": ..., "signingSecret"?: ... }` of the generic webhook. */
  CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID: z.string().min(1).optional(),
  /** Local runs (CLI): the same as values; registered for redaction. */
  CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: z.url().optional(),
  /** e.g. https://console.example/{organizationId}/services/{serviceId}/pipes/{pipeId} */
  CLOUDOPS_WATCHDOG_LINK_TEMPLATE: z.string().min(1).optional(),
  CLOUDOPS_WATCHDOG_WEBHOOK_URL: z.url().optional(),
  CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET: z
    .string()
    .min(16, 'expected at least 16 characters')
    .optional(),
  /** Bus name or ARN; set to emit `Pipe State Changed` events. */
  CLOUDOPS_WATCHDOG_EVENT_BUS: z.string().min(1).optional(),
  CLOUDOPS_WATCHDOG_INCLUDE_PIPES: envList.optional(),
  CLOUDOPS_WATCHDOG_EXCLUDE_PIPES: envList.optional(),
  CLOUDOPS_WATCHDOG_EXPECTED_STOPPED: envList.optional(),
  CLOUDOPS_WATCHDOG_STUCK_MINUTES: minutes.optional(),
  CLOUDOPS_WATCHDOG_REMINDER_MINUTES: minutes.optional(),
  CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES: count.optional(),
  CLOUDOPS_WATCHDOG_FLAP_WINDOW_MINUTES: minutes.optional(),
  CLOUDOPS_WATCHDOG_FLAP_STABLE_MINUTES: minutes.optional(),
  CLOUDOPS_WATCHDOG_ANNOUNCE_NEW: envFlag.optional(),
  CLOUDOPS_WATCHDOG_SELF_WATCH_FAILURES: count.optional(),
  CLOUDOPS_WATCHDOG_AUTO_RESTART: envFlag.optional(),
  CLOUDOPS_WATCHDOG_AUTO_RESTART_MAX: count.optional(),
  CLOUDOPS_WATCHDOG_AUTO_RESTART_WINDOW_MINUTES: minutes.optional(),
  /** Retries of one API call stop after this long: a failing service is retried next run. */
  CLOUDOPS_WATCHDOG_API_DEADLINE_MS: z.coerce.number().int().positive().default(20_000),
});
export type WatchdogEnv = z.output<typeof watchdogEnv>;

export interface WatchdogSettings {
  connection: ConnectionEnv;
  tableName: string | undefined;
  apiDeadlineMs: number;
  queueUrl: string | undefined;
  servicesPerMessage: number;
  notifiers: NotifierSettings;
  watchdog: WatchdogConfigInput;
}

/** Drop undefined members so zod defaults apply. */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A secret id or values in env, not both (which one would win is not obvious). */
function source<T>(
  prefix: string,
  secretId: string | undefined,
  value: T | undefined,
): SecretSource<T> | undefined {
  if (secretId && value) {
    throw new ConfigError(
      `invalid configuration: set ${prefix}_SECRET_ID or its values in env (${prefix}_..._URL), not both`,
    );
  }
  if (secretId) return { secretId };
  return value ? { value } : undefined;
}

/**
 * Everything the watchdog needs from env. Organization and service ids are required;
 * `env` defaults to the process environment (read inside lib/config.ts only).
 */
export function readWatchdogSettings(env?: Record<string, string | undefined>): WatchdogSettings {
  const connection = readConnectionEnv(env, [
    'CLOUDOPS_API_URL',
    'CLOUDOPS_ORGANIZATION_ID',
    'CLOUDOPS_SERVICE_ID',
  ]);
  const e = readEnv(watchdogEnv, env);
  return {
    connection,
    tableName: e.CLOUDOPS_WATCHDOG_TABLE,
    apiDeadlineMs: e.CLOUDOPS_WATCHDOG_API_DEADLINE_MS,
    queueUrl: e.CLOUDOPS_WATCHDOG_QUEUE_URL,
    // One message = one rate-limit window of listings: a consumer finishes it within a window.
    servicesPerMessage:
      e.CLOUDOPS_WATCHDOG_SERVICES_PER_MESSAGE ?? connection.CLOUDOPS_MANAGEMENT_RATE_LIMIT.limit,
    notifiers: notifierSettingsOf(e),
    watchdog: {
      organizationId: connection.CLOUDOPS_ORGANIZATION_ID!,
      serviceIds: connection.CLOUDOPS_SERVICE_ID!,
      ...defined({
        includePipes: e.CLOUDOPS_WATCHDOG_INCLUDE_PIPES,
        excludePipes: e.CLOUDOPS_WATCHDOG_EXCLUDE_PIPES,
        selfWatchAfterFailures: e.CLOUDOPS_WATCHDOG_SELF_WATCH_FAILURES,
      }),
      policy: defined({
        expectedStopped: e.CLOUDOPS_WATCHDOG_EXPECTED_STOPPED,
        stuckAfterMs: e.CLOUDOPS_WATCHDOG_STUCK_MINUTES,
        reminderIntervalMs: e.CLOUDOPS_WATCHDOG_REMINDER_MINUTES,
        flapMaxChanges: e.CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES,
        flapWindowMs: e.CLOUDOPS_WATCHDOG_FLAP_WINDOW_MINUTES,
        flapStableMs: e.CLOUDOPS_WATCHDOG_FLAP_STABLE_MINUTES,
        announceNew: e.CLOUDOPS_WATCHDOG_ANNOUNCE_NEW,
      }),
      autoRestart: defined({
        enabled: e.CLOUDOPS_WATCHDOG_AUTO_RESTART,
        maxAttempts: e.CLOUDOPS_WATCHDOG_AUTO_RESTART_MAX,
        windowMs: e.CLOUDOPS_WATCHDOG_AUTO_RESTART_WINDOW_MINUTES,
      }),
    },
  };
}

/** The watchdog's notifiers from its env (also what the dashboard sync tells drift through). */
function notifierSettingsOf(e: WatchdogEnv): NotifierSettings {
  registerSecret(e.CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL);
  registerSecret(e.CLOUDOPS_WATCHDOG_WEBHOOK_URL);
  registerSecret(e.CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET);
  return defined({
    snsTopicArn: e.CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN,
    slack: source(
      'CLOUDOPS_WATCHDOG_SLACK',
      e.CLOUDOPS_WATCHDOG_SLACK_SECRET_ID,
      e.CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL
        ? { url: e.CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL }
        : undefined,
    ),
    linkTemplate: e.CLOUDOPS_WATCHDOG_LINK_TEMPLATE,
    webhook: source(
      'CLOUDOPS_WATCHDOG_WEBHOOK',
      e.CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID,
      e.CLOUDOPS_WATCHDOG_WEBHOOK_URL
        ? {
            url: e.CLOUDOPS_WATCHDOG_WEBHOOK_URL,
            signingSecret: e.CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET,
          }
        : undefined,
    ),
    eventBus: e.CLOUDOPS_WATCHDOG_EVENT_BUS,
  });
}

/**
 * The watchdog's notifiers, state table and reminder/flap policy, for another function that
 * notifies the same way (the dashboard sync in report mode). No connection settings needed.
 */
export function readWatchdogNotifySettings(env?: Record<string, string | undefined>): {
  tableName: string | undefined;
  notifiers: NotifierSettings;
  policy: WatchdogPolicyInput;
} {
  const e = readEnv(watchdogEnv, env);
  return {
    tableName: e.CLOUDOPS_WATCHDOG_TABLE,
    notifiers: notifierSettingsOf(e),
    policy: defined({
      reminderIntervalMs: e.CLOUDOPS_WATCHDOG_REMINDER_MINUTES,
      flapMaxChanges: e.CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES,
      flapWindowMs: e.CLOUDOPS_WATCHDOG_FLAP_WINDOW_MINUTES,
      flapStableMs: e.CLOUDOPS_WATCHDOG_FLAP_STABLE_MINUTES,
    }),
  };
}
