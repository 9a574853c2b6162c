/**
 * The key sentinel Lambda (scheduled, daily): audits every key of the organization and our key
 * secrets, and tells each new finding once (reminders by policy, one notice when it is gone)
 * through the notifiers configured for it.
 *
 * No middy: the schedule's event carries nothing the audit reads, and no middleware runs (its
 * secret is read when it lists keys, its "not configured yet" answered in lib), so middy would
 * only wrap the one call.
 */
import type { Context } from 'aws-lambda';
import {
  sentinelEntry,
  type SentinelEntryOptions,
  type SentinelReport,
} from '../../lib/keys/sentinel-entry';
import { lazyHandler } from '../runtime';

export function createSentinelHandler(options: SentinelEntryOptions = {}) {
  const auditKeys = sentinelEntry(options);
  return function keySentinel(_event: unknown, _context: Context): Promise<SentinelReport> {
    return auditKeys();
  };
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createSentinelHandler());
