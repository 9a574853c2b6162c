/**
 * What a watcher reads from env (parsed by lib/config.ts's readEnv, so every bad variable is
 * named and no value is echoed): the table of its records, the reminder and flap policy, and
 * its notifiers. The names keep the `CLOUDOPS_WATCHDOG_` prefix they had when the pipe
 * watchdog was the only watcher, so existing deployments and env files keep working.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod/mini';
import { coercedNumber } from '../schemas/builders';
import { readEnv } from '../config';
import type { ConditionPolicyInput } from './condition';
import { DynamoWatchStore } from './dynamo-store';
import {
  configuredNotifiers,
  createNotifiers,
  notifierEnv,
  type ConfiguredNotifier,
} from './notifiers/registry';
import type { NotifierClients } from './notifiers/types';

export const envCount = z.lazy(() => coercedNumber().check(z.int(), z.positive()));
export const envMinutes = z.lazy(() =>
  z.pipe(
    coercedNumber().check(z.positive()),
    z.transform((m) => Math.round(m * 60_000)),
  ),
);

export const WATCH_TABLE_VARIABLE = 'CLOUDOPS_WATCHDOG_TABLE';

export const watchEnv = z.extend(notifierEnv, {
  /** DynamoDB table of the watched records (the functions); the CLI keeps a file instead. */
  [WATCH_TABLE_VARIABLE]: z.optional(z.string().check(z.minLength(1))),
  CLOUDOPS_WATCHDOG_REMINDER_MINUTES: z.optional(envMinutes),
  CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES: z.optional(envCount),
  CLOUDOPS_WATCHDOG_FLAP_WINDOW_MINUTES: z.optional(envMinutes),
  CLOUDOPS_WATCHDOG_FLAP_STABLE_MINUTES: z.optional(envMinutes),
});
type WatchEnv = z.output<typeof watchEnv>;

export interface WatchSettings {
  tableName: string | undefined;
  policy: ConditionPolicyInput;
  notifiers: ConfiguredNotifier[];
}

/** Drop undefined members so zod defaults apply. */
export function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The watch part of an env already parsed (a watcher's own schema extends watchEnv). */
export function watchSettingsOf(e: WatchEnv): WatchSettings {
  return {
    tableName: e.CLOUDOPS_WATCHDOG_TABLE,
    notifiers: configuredNotifiers(e),
    policy: defined({
      reminderIntervalMs: e.CLOUDOPS_WATCHDOG_REMINDER_MINUTES,
      flapMaxChanges: e.CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES,
      flapWindowMs: e.CLOUDOPS_WATCHDOG_FLAP_WINDOW_MINUTES,
      flapStableMs: e.CLOUDOPS_WATCHDOG_FLAP_STABLE_MINUTES,
    }),
  };
}

function readWatchSettings(env?: Record<string, string | undefined>): WatchSettings {
  return watchSettingsOf(readEnv(watchEnv, env));
}

/**
 * A deployed watcher's store, notifiers and policy from env; undefined without a table or
 * without a notifier (nowhere to keep records, or no one to tell).
 */
export function watchFromEnv(
  env: Record<string, string | undefined> | undefined,
  clients: NotifierClients & { dynamo: DynamoDBClient },
) {
  const settings = readWatchSettings(env);
  if (!settings.tableName || settings.notifiers.length === 0) return undefined;
  return {
    store: new DynamoWatchStore({ client: clients.dynamo, tableName: settings.tableName }),
    notifiers: createNotifiers(settings.notifiers, clients),
    policy: settings.policy,
  };
}
