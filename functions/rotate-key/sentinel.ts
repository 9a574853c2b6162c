/**
 * The key-expiry sentinel Lambda (scheduled): checks every function's management key and
 * warns, through the notifiers configured for it, when one nears expiry (its rotation is stuck).
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { KeyExpiryCheck } from '../../lib/keys/sentinel';
import { sentinelEntry, type SentinelEntryOptions } from '../../lib/keys/sentinel-entry';
import { lazyHandler } from '../runtime';

export function createSentinelHandler(options: SentinelEntryOptions = {}) {
  const checkKeys = sentinelEntry(options);
  return middy<unknown, KeyExpiryCheck[], Error, Context>().handler(function keyExpirySentinel() {
    return checkKeys();
  });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createSentinelHandler());
