/**
 * pipe-watchdog Lambda (scheduled). With a queue configured (CLOUDOPS_WATCHDOG_QUEUE_URL) it
 * only enqueues the services, a rate-limit window's worth per message, for consumer.ts: no API
 * request at all. Without one it checks every service itself (small deployments, as before).
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { enqueueServices } from '../../lib/pipes/fanout';
import { runWatchdogFromSettings } from '../../lib/pipes/run';
import { parseWatchdogConfig, type WatchdogError } from '../../lib/pipes/watchdog';
import { clientsOf } from '../connect';
import { lazyHandler } from '../runtime';
import { watchdogWiring, type PipeWatchdogHandlerOptions } from './wiring';

export type { PipeWatchdogHandlerOptions } from './wiring';

export interface PipeWatchdogSummary {
  checked: number;
  notifications: number;
  errors: WatchdogError[];
  /** Fan-out: messages and services enqueued for the consumer. */
  enqueued?: { runId: string; messages: number; services: number };
}

export function createHandler(options: PipeWatchdogHandlerOptions = {}) {
  const w = watchdogWiring(options);
  if (w.queue) {
    const queue = w.queue;
    const config = parseWatchdogConfig(w.settings.watchdog);
    return middy<unknown, PipeWatchdogSummary, Error, Context>().handler(
      async function pipeWatchdogEnqueue(): Promise<PipeWatchdogSummary> {
        const enqueued = await enqueueServices(config, {
          queue,
          servicesPerMessage: w.settings.servicesPerMessage,
          now: w.now,
        });
        w.logger.info('services enqueued for the watchdog consumer', { ...enqueued });
        return { checked: 0, notifications: 0, errors: [], enqueued };
      },
    );
  }
  const notifiers = w.notifiers();
  return middy<unknown, PipeWatchdogSummary, Error, Context>()
    .use(w.clients())
    .handler(async function pipeWatchdog(_event, context): Promise<PipeWatchdogSummary> {
      const result = await runWatchdogFromSettings(w.settings, {
        api: clientsOf(context).requireManagement(),
        store: w.store,
        notifiers,
        now: w.now,
        logger: w.logger,
        metricsSink: w.metricsSink,
      });
      return {
        checked: result.checked,
        notifications: result.notifications.length,
        errors: result.errors,
      };
    });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createHandler());
