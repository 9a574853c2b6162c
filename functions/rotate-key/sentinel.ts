import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { readConnectionEnv, readEnv } from '../../lib/config';
import {
  checkKeyExpiry,
  readRotationConfig,
  rotationDeps,
  snsKeyExpiryNotifier,
  type KeyExpiryCheckOptions,
  type KeyExpiryNotice,
} from '../../lib/keys';
import { createLogger } from '../../lib/log';

export type SentinelOptions = Omit<KeyExpiryCheckOptions, 'now'> & { now?: () => number };

/** Scheduled check: warns (through the notifier) when the AWSCURRENT key expires soon. */
export function createSentinelHandler(options: SentinelOptions | (() => SentinelOptions)) {
  let resolved: SentinelOptions | undefined;
  const get = () => (resolved ??= typeof options === 'function' ? options() : options);
  return middy<unknown, KeyExpiryNotice, Error, Context>().handler(
    async function keyExpirySentinel() {
      const o = get();
      return checkKeyExpiry({ ...o, now: o.now ?? Date.now });
    },
  );
}

const sentinelEnv = z.object({ CLOUDOPS_KEY_SENTINEL_TOPIC_ARN: z.string().min(1).optional() });

function sentinelOptionsFromEnv(): SentinelOptions {
  const connection = readConnectionEnv(undefined, ['CLOUDOPS_KEY_SECRET_ID']);
  const rotation = readRotationConfig();
  const { CLOUDOPS_KEY_SENTINEL_TOPIC_ARN: topicArn } = readEnv(sentinelEnv);
  const logger = createLogger({
    level: connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'key-expiry-sentinel' },
  });
  const secrets = new SecretsManagerClient({});
  return {
    secrets,
    secretId: connection.CLOUDOPS_KEY_SECRET_ID!,
    warnDays: rotation.warnDays,
    // The key record's expireAt is the one the service enforces.
    connect: connection.CLOUDOPS_API_URL
      ? rotationDeps(connection, { secrets, config: rotation, logger }).connect
      : undefined,
    adminSecretId: rotation.adminSecretId,
    notifier: topicArn ? snsKeyExpiryNotifier(new SNSClient({}), topicArn) : undefined,
    logger,
  };
}

export const handler = createSentinelHandler(sentinelOptionsFromEnv);
