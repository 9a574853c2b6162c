/**
 * The key-expiry sentinel's function entry (functions/rotate-key/sentinel.ts calls it): every
 * function's key in turn, each warning delivered once through the lib/watch notifiers the
 * deployment configured for it. A secret still holding its deploy-time placeholder is skipped
 * with one info line (not configured yet is not a stuck rotation).
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import { NotConfiguredError, readConnectionEnv, readEnv } from '../config';
import { CloudOpsError, ConfigError } from '../errors';
import { createLogger, type Logger } from '../log';
import { configuredNotifiers, createNotifiers, notifierEnv } from '../watch/notifiers/registry';
import type { NotifierClients } from '../watch/notifiers/types';
import { deliverNow } from '../watch/run';
import type { KeyNotice } from '../watch/subjects/key';
import { readRotationConfig } from './config';
import { rotationDeps } from './deps';
import { checkKeyExpiry, keyExpiryNotice, type KeyExpiryCheck } from './sentinel';

export const sentinelEnv = notifierEnv.extend({
  /** Every key secret to check, comma separated (one per function). */
  CLOUDOPS_KEY_SENTINEL_SECRET_IDS: z
    .string()
    .transform((text) =>
      text
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().min(1)).min(1, 'expected at least one secret id'))
    .optional(),
});

export interface SentinelEntryOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  /** Reads the key secrets (and the notifiers' secrets). */
  secretsManager?: SecretsManagerClient;
  /** The notifiers' AWS clients (SNS, EventBridge). */
  notify?: Omit<NotifierClients, 'secretsManager'>;
  /** Epoch ms. @default Date.now */
  now?: () => number;
  logger?: Logger;
}

export function sentinelEntry(options: SentinelEntryOptions = {}) {
  const connection = readConnectionEnv(options.env);
  const rotation = readRotationConfig(options.env);
  const env = readEnv(sentinelEnv, options.env);
  const secretIds =
    env.CLOUDOPS_KEY_SENTINEL_SECRET_IDS ??
    (connection.CLOUDOPS_KEY_SECRET_ID ? [connection.CLOUDOPS_KEY_SECRET_ID] : []);
  if (secretIds.length === 0) {
    throw new ConfigError(
      'missing configuration: set CLOUDOPS_KEY_SENTINEL_SECRET_IDS (or CLOUDOPS_KEY_SECRET_ID)',
    );
  }
  const logger =
    options.logger ??
    createLogger({
      level: connection.CLOUDOPS_LOG_LEVEL,
      fields: { function: 'key-expiry-sentinel' },
    });
  const secrets = options.secretsManager ?? new SecretsManagerClient({});
  const notifiers = createNotifiers(configuredNotifiers(env), {
    ...options.notify,
    secretsManager: secrets,
  });
  const now = options.now ?? Date.now;
  // The key record's expireAt is the one the service enforces.
  const connect = connection.CLOUDOPS_API_URL
    ? rotationDeps(connection, { secrets, config: rotation, logger }).connect
    : undefined;
  const reported = new Set<string>();

  async function check(secretId: string): Promise<KeyExpiryCheck | undefined> {
    try {
      return await checkKeyExpiry({
        secrets,
        secretId,
        warnDays: rotation.warnDays,
        now,
        connect,
        adminSecretId: rotation.adminSecretId,
        logger,
      });
    } catch (error) {
      if (!(error instanceof NotConfiguredError)) throw error;
      if (!reported.has(secretId)) logger.info('not configured yet: key not checked', { secretId });
      reported.add(secretId);
      return undefined;
    }
  }

  /** Check every key; warn about those that are not ok. Fails when a warning was not delivered. */
  return async function checkKeys(): Promise<KeyExpiryCheck[]> {
    const checks: KeyExpiryCheck[] = [];
    for (const secretId of secretIds) {
      const checked = await check(secretId);
      if (checked) checks.push(checked);
    }
    const notices = checks
      .map((c) => keyExpiryNotice(c, now()))
      .filter((n): n is KeyNotice => n !== undefined);
    const failures = await deliverNow(notices, { notifiers, now, logger });
    if (failures.length > 0)
      throw new CloudOpsError(
        `key-expiry warning not delivered: ${failures.map((f) => f.message).join('; ')}`,
      );
    return checks;
  };
}
