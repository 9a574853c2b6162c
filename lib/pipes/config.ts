/**
 * The watchdog's settings from env (the function and the CLI share them). Parsed by readEnv
 * from lib/config.ts, so every bad variable is named and no value is echoed. What every
 * watcher reads (its table, reminder and flap policy, notifiers) is lib/watch's watchEnv.
 */
import * as z from 'zod/mini';
import { coercedNumber, safeInteger } from '../schemas/builders';
import { envFlag, envList, readConnectionEnv, readEnv, type ConnectionEnv } from '../config';
import { defined, envCount, envMinutes } from '../watch/record-settings';
import { watchEnv, watchSettingsOf, type WatchSettings } from '../watch/settings';
import { WATCHDOG_NOTICES } from '../watch/subjects/watchdog';
import { watchdogQueueEnv } from './queue-config';
import type { WatchdogConfigInput } from './watchdog-config';

export const watchdogEnv = z.extend(watchEnv, {
  ...watchdogQueueEnv.shape,
  CLOUDOPS_WATCHDOG_INCLUDE_PIPES: z.optional(envList),
  CLOUDOPS_WATCHDOG_EXCLUDE_PIPES: z.optional(envList),
  CLOUDOPS_WATCHDOG_EXPECTED_STOPPED: z.optional(envList),
  CLOUDOPS_WATCHDOG_STUCK_MINUTES: z.optional(envMinutes),
  CLOUDOPS_WATCHDOG_ANNOUNCE_NEW: z.optional(envFlag),
  CLOUDOPS_WATCHDOG_SELF_WATCH_FAILURES: z.optional(envCount),
  CLOUDOPS_WATCHDOG_AUTO_RESTART: z.optional(envFlag),
  CLOUDOPS_WATCHDOG_AUTO_RESTART_MAX: z.optional(envCount),
  CLOUDOPS_WATCHDOG_AUTO_RESTART_WINDOW_MINUTES: z.optional(envMinutes),
  /** Fetched data unsent this long is stalled; nothing in or out this long is quiet (1 min-1 day). */
  CLOUDOPS_WATCHDOG_STALL_MINUTES: z.optional(
    z.pipe(
      coercedNumber().check(z.gte(1), z.lte(1440)),
      z.transform((m) => Math.round(m * 60_000)),
    ),
  ),
  /** Pipe ids, names or name globs expected to have traffic: quiet is told only for them. */
  CLOUDOPS_WATCHDOG_EXPECT_TRAFFIC: z.optional(envList),
  /** Errors growing by more than this between two runs is erroring. */
  CLOUDOPS_WATCHDOG_ERRORS_PER_RUN: z.optional(
    coercedNumber().check(safeInteger(), z.gte(0), z.lte(1_000_000_000)),
  ),
  /** Retries of one API call stop after this long: a failing service is retried next run. */
  CLOUDOPS_WATCHDOG_API_DEADLINE_MS: z._default(
    coercedNumber().check(safeInteger(), z.positive()),
    20_000,
  ),
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
  const watch = watchSettingsOf(e, WATCHDOG_NOTICES.render);
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
