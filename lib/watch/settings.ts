/**
 * What a watcher that notifies through the registry reads from env (parsed by lib/config.ts's
 * readEnv, so every bad variable is named and no value is echoed): its records' table and
 * policy (record-settings.ts) and every notifier, with routing.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod/mini';
import { readEnv } from '../config';
import { DynamoWatchStore } from './dynamo-store';
import type { RenderNotice } from './notice';
import { configuredNotifiers, notifierEnv } from './notifiers/registry';
import { createNotifiers, type ConfiguredNotifier } from './notifiers/set';
import type { NotifierClients } from './notifiers/types';
import {
  watchRecordSettingsOf,
  watchRecordShape,
  type WatchRecordSettings,
} from './record-settings';

/** The records and every notifier of the registry, with routing. */
export const watchEnv = z.extend(notifierEnv, watchRecordShape);
type WatchEnv = z.output<typeof watchEnv>;

export interface WatchSettings extends WatchRecordSettings {
  notifiers: ConfiguredNotifier[];
}

/**
 * The watch part of an env already parsed (a watcher's own schema extends watchEnv); `render`
 * is the watcher's renderer of its notices (its NoticeSet's).
 */
export function watchSettingsOf(e: WatchEnv, render: RenderNotice): WatchSettings {
  return { ...watchRecordSettingsOf(e), notifiers: configuredNotifiers(e, render) };
}

/**
 * A deployed watcher's store, notifiers and policy from env; undefined without a table or
 * without a notifier (nowhere to keep records, or no one to tell).
 */
export function watchFromEnv(
  env: Record<string, string | undefined> | undefined,
  render: RenderNotice,
  clients: NotifierClients & { dynamo: DynamoDBClient },
) {
  const settings = watchSettingsOf(readEnv(watchEnv, env), render);
  if (!settings.tableName || settings.notifiers.length === 0) return undefined;
  return {
    store: new DynamoWatchStore({ client: clients.dynamo, tableName: settings.tableName }),
    notifiers: createNotifiers(settings.notifiers, clients),
    policy: settings.policy,
  };
}
