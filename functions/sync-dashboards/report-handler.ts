/**
 * sync-dashboards Lambda as the stack deploys it in report mode
 * (`cloudops:dashboardsScheduleMode=report`): the repair entry plus the drift teller, so the
 * schedule only plans and tells drift through the watch engine's table and notifiers. Object
 * events and continuations apply as in repair mode.
 */
import { driftTellerFromEnv } from '../../lib/dashboards/drift-notice';
import { lazyHandler } from '../runtime';
import { createHandler as createSyncHandler, type SyncDashboardsHandlerOptions } from './handler';

export function createHandler(options: SyncDashboardsHandlerOptions = {}) {
  return createSyncHandler({ ...options, driftTeller: driftTellerFromEnv });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createHandler());
