/**
 * pipe-watchdog Lambda (scheduled). With a queue configured (CLOUDOPS_WATCHDOG_QUEUE_URL) it
 * only enqueues the services, a rate-limit window's worth per message, for consumer.ts: no API
 * request at all. Without one it checks every service itself (small deployments, as before).
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  watchdogEntry,
  type PipeWatchdogSummary,
  type WatchdogEntryOptions,
} from '../../lib/pipes/entry';
import { clientsMiddleware, clientsOf } from '../connect';
import { lazyHandler } from '../runtime';

export function createHandler(options: WatchdogEntryOptions = {}) {
  const entry = watchdogEntry(options);
  if (entry.fansOut) {
    return middy<unknown, PipeWatchdogSummary, Error, Context>().handler(
      function pipeWatchdogEnqueue() {
        return entry.enqueue();
      },
    );
  }
  return middy<unknown, PipeWatchdogSummary, Error, Context>()
    .use(clientsMiddleware(entry.connection))
    .handler(function pipeWatchdog(_event, context) {
      return entry.check(clientsOf(context).requireManagement());
    });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createHandler());
