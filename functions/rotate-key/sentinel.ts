import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { ConfigError } from '../../lib/errors';
import { NotConfiguredError, readConnectionEnv, readEnv } from '../../lib/config';
import {
  checkKeyExpiry,
  readRotationConfig,
  rotationDeps,
  snsKeyExpiryNotifier,
  type KeyExpiryCheckOptions,
  type KeyExpiryNotice,
} from '../../lib/keys';
import { createLogger, silentLogger } from '../../lib/log';
import { lazyHandler } from '../runtime';

export type SentinelOptions = Omit<KeyExpiryCheckOptions, 'now'> & { now?: () => number };

/** Scheduled check: warns (through the notifier) when the AWSCURRENT key expires soon. */
export function createSentinelHandler(options: SentinelOptions) {
  return middy<unknown, KeyExpiryNotice, Error, Context>().handler(
    async function keyExpirySentinel() {
      return checkKeyExpiry({ ...options, now: options.now ?? Date.now });
    },
  );
}

/**
 * The deployed sentinel: every function's key in turn. A secret still holding its deploy-time
 * placeholder is skipped with one info line (not configured yet is not a stuck rotation).
 */
export function createSentinelsHandler(options: SentinelOptions, secretIds: readonly string[]) {
  const log = options.logger ?? silentLogger;
  const reported = new Set<string>();
  return middy<unknown, KeyExpiryNotice[], Error, Context>().handler(
    async function keyExpirySentinels() {
      const notices: KeyExpiryNotice[] = [];
      for (const secretId of secretIds) {
        try {
          notices.push(
            await checkKeyExpiry({ ...options, secretId, now: options.now ?? Date.now }),
          );
        } catch (error) {
          if (!(error instanceof NotConfiguredError)) throw error;
          if (!reported.has(secretId))
            log.info('not configured yet: key not checked', { secretId });
          reported.add(secretId);
        }
      }
      return notices;
    },
  );
}

export const sentinelEnv = z.object({
  CLOUDOPS_KEY_SENTINEL_TOPIC_ARN: z.string().min(1).optional(),
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

function sentinelFromEnv() {
  const connection = readConnectionEnv();
  const rotation = readRotationConfig();
  const env = readEnv(sentinelEnv);
  const secretIds =
    env.CLOUDOPS_KEY_SENTINEL_SECRET_IDS ??
    (connection.CLOUDOPS_KEY_SECRET_ID ? [connection.CLOUDOPS_KEY_SECRET_ID] : []);
  if (secretIds.length === 0) {
    throw new ConfigError(
      'missing configuration: set CLOUDOPS_KEY_SENTINEL_SECRET_IDS (or CLOUDOPS_KEY_SECRET_ID)',
    );
  }
  const logger = createLogger({
    level: connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'key-expiry-sentinel' },
  });
  const secrets = new SecretsManagerClient({});
  const topicArn = env.CLOUDOPS_KEY_SENTINEL_TOPIC_ARN;
  const options: SentinelOptions = {
    secrets,
    secretId: secretIds[0],
    warnDays: rotation.warnDays,
    // The key record's expireAt is the one the service enforces.
    connect: connection.CLOUDOPS_API_URL
      ? rotationDeps(connection, { secrets, config: rotation, logger }).connect
      : undefined,
    adminSecretId: rotation.adminSecretId,
    notifier: topicArn ? snsKeyExpiryNotifier(new SNSClient({}), topicArn) : undefined,
    logger,
  };
  return createSentinelsHandler(options, secretIds);
}

export const handler = lazyHandler(sentinelFromEnv);
