/**
 * The watchdog's settings from env (the function and the CLI share them). Parsed by readEnv
 * from lib/config.ts, so every bad variable is named and no value is echoed. What every
 * watcher reads (its table, reminder and flap policy, notifiers) is lib/watch's watchEnv.
 */
import * as z from 'zod';
import { envFlag, envList, readConnectionEnv, readEnv, type ConnectionEnv } from '../config';
import {
  defined,
  envCount,
  envMinutes,
  watchEnv,
  watchSettingsOf,
  type WatchSettings,
} from '../watch/settings';
import { watchdogQueueEnv } from './queue-config';
import type { WatchdogConfigInput } from './watchdog-config';

export const watchdogEnv = watchEnv.extend({
  ...watchdogQueueEnv.shape,
  CLOUDOPS_WATCHDOG_INCLUDE_PIPES: envList.optional(),
  CLOUDOPS_WATCHDOG_EXCLUDE_PIPES: envList.optional(),
  CLOUDOPS_WATCHDOG_EXPECTED_STOPPED: envList.optional(),
  CLOUDOPS_WATCHDOG_STUCK_MINUTES: envMinutes.optional(),
  CLOUDOPS_WATCHDOG_ANNOUNCE_NEW: envFlag.optional(),
  CLOUDOPS_WATCHDOG_SELF_WATCH_FAILURES: envCount.optional(),
  CLOUDOPS_WATCHDOG_AUTO_RESTART: envFlag.optional(),
  CLOUDOPS_WATCHDOG_AUTO_RESTART_MAX: envCount.optional(),
  CLOUDOPS_WATCHDOG_AUTO_RESTART_WINDOW_MINUTES: envMinutes.optional(),
  /** Fetched data unsent this long is stalled; nothing in or out this long is quiet (1 min-1 day). */
  CLOUDOPS_WATCHDOG_STALL_MINUTES: z.coerce
    .number()
    .min(1)
    .max(1440)
    .transform((m) => Math.round(m * 60_000))
    .optional(),
  /** Pipe ids, names or name globs expected to have traffic: quiet is told only for them. */
  CLOUDOPS_WATCHDOG_EXPECT_TRAFFIC: envList.optional(),
  /** Errors growing by more than this between two runs is erroring. */
  CLOUDOPS_WATCHDOG_ERRORS_PER_RUN: z.coerce.number().int().min(0).max(1_000_000_000).optional(),
  /** Retries of one API call stop after this long: a failing service is retried next run. */
  CLOUDOPS_WATCHDOG_API_DEADLINE_MS: z.coerce.number().int().positive().default(20_000),
});

export interface WatchdogSettings extends WatchSettings {
  connection: ConnectionEnv;
  apiDeadlineMs: number;
  queueUrl: string | undefined;
  watchdog: WatchdogConfigInput;
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
  const watch = watchSettingsOf(e);
  return {
    ...watch,
    connection,
    apiDeadlineMs: e.CLOUDOPS_WATCHDOG_API_DEADLINE_MS,
    queueUrl: e.CLOUDOPS_WATCHDOG_QUEUE_URL,
    watchdog: {
      organizationId: connection.CLOUDOPS_ORGANIZATION_ID!,
      serviceIds: connection.CLOUDOPS_SERVICE_ID!,
      ...defined({
        includePipes: e.CLOUDOPS_WATCHDOG_INCLUDE_PIPES,
        excludePipes: e.CLOUDOPS_WATCHDOG_EXCLUDE_PIPES,
        selfWatchAfterFailures: e.CLOUDOPS_WATCHDOG_SELF_WATCH_FAILURES,
      }),
      policy: {
        ...watch.policy,
        ...defined({
          expectedStopped: e.CLOUDOPS_WATCHDOG_EXPECTED_STOPPED,
          stuckAfterMs: e.CLOUDOPS_WATCHDOG_STUCK_MINUTES,
          announceNew: e.CLOUDOPS_WATCHDOG_ANNOUNCE_NEW,
        }),
      },
      progress: defined({
        stallAfterMs: e.CLOUDOPS_WATCHDOG_STALL_MINUTES,
        expectTraffic: e.CLOUDOPS_WATCHDOG_EXPECT_TRAFFIC,
        errorsPerRun: e.CLOUDOPS_WATCHDOG_ERRORS_PER_RUN,
      }),
      autoRestart: defined({
        enabled: e.CLOUDOPS_WATCHDOG_AUTO_RESTART,
        maxAttempts: e.CLOUDOPS_WATCHDOG_AUTO_RESTART_MAX,
        windowMs: e.CLOUDOPS_WATCHDOG_AUTO_RESTART_WINDOW_MINUTES,
      }),
    },
  };
}
