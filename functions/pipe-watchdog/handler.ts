/**
 * pipe-watchdog Lambda (scheduled). As the stack deploys it, it only enqueues the services, a
 * rate-limit window's worth per message, for consumer.ts: no API request, no secret, no table.
 * A check without the queue is the CLI's `cloudops pipes check`.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  enqueueEntry,
  type EnqueueEntryOptions,
  type EnqueueSummary,
} from '../../lib/pipes/enqueue-entry';
import { lazyHandler } from '../runtime';

export function createHandler(options: EnqueueEntryOptions = {}) {
  const enqueue = enqueueEntry(options);
  return middy<unknown, EnqueueSummary, Error, Context>().handler(function pipeWatchdogEnqueue() {
    return enqueue();
  });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createHandler());
