/**
 * The key sentinel Lambda (scheduled, daily): audits every key of the organization and our key
 * secrets, and tells each new finding once (reminders by policy, one notice when it is gone)
 * through the notifiers configured for it.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  sentinelEntry,
  type SentinelEntryOptions,
  type SentinelReport,
} from '../../lib/keys/sentinel-entry';
import { lazyHandler } from '../runtime';

export function createSentinelHandler(options: SentinelEntryOptions = {}) {
  const auditKeys = sentinelEntry(options);
  return middy<unknown, SentinelReport, Error, Context>().handler(function keySentinel() {
    return auditKeys();
  });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createSentinelHandler());
