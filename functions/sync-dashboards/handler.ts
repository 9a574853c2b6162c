/**
 * sync-dashboards Lambda as the stack deploys it in repair mode (its default): S3 object events
 * under the dashboards prefix apply the files, the schedule repairs drift. Report mode is
 * report-handler.ts (it adds the drift teller and its watch engine, which this bundle leaves
 * out; started with CLOUDOPS_DASHBOARDS_SCHEDULE_MODE=report, this one refuses).
 * Thin: the wiring and the work are in lib/dashboards/entry.ts; here middy, the API clients
 * (credentials from Secrets Manager, or values in env) and the invocation's deadline.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { Clock } from '../../lib/api/clock';
import type { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import {
  syncDashboardsEntry,
  type SyncEntryOptions,
  type SyncFunctionSummary,
} from '../../lib/dashboards/entry';
import { SYNC_KIT } from '../../lib/api/kit';
import { clientsMiddleware, clientsOf } from '../connect';
import { deadlineFrom, lazyHandler, middySignal, type Deadline } from '../runtime';

export interface SyncDashboardsHandlerOptions extends SyncEntryOptions {
  /** The API clients' clock and limiters (a bench drives a fake clock). */
  clock?: Clock;
  limiters?: RateLimiterRegistry;
  /** The invocation's deadline (a bench puts it on its fake clock); default deadlineFrom. */
  deadline?: (context: Context, signal?: AbortSignal) => Pick<Deadline, 'signal'>;
}

export function createHandler(options: SyncDashboardsHandlerOptions = {}) {
  // The entry makes its Secrets Manager client only when a webhook file references a secret.
  const entry = syncDashboardsEntry(options);
  const deadline = options.deadline ?? ((c, s) => deadlineFrom(c, { signal: s }));
  return middy<unknown, SyncFunctionSummary, Error, Context>()
    .use(
      clientsMiddleware({
        config: entry.home.connection,
        needs: entry.home.needs,
        kit: SYNC_KIT,
        ...(options.secretsManager ? { secretsManager: options.secretsManager } : {}),
        logger: entry.logger,
        overrides: { clock: options.clock, limiters: options.limiters },
      }),
    )
    .handler(function syncDashboards(event, context, opts): Promise<SyncFunctionSummary> {
      return entry.run(event, {
        // Dashboards of the first configured service (managed mode); open-source has none.
        backend: clientsOf(context).backend(entry.home.serviceId),
        // Writes stop before the Lambda's timeout; the summary says what is left for the next run.
        signal: deadline(context, middySignal(opts)).signal,
      });
    });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createHandler());
