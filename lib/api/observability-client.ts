import * as z from 'zod/mini';
import {
  dashboard,
  dashboardWrite,
  type Dashboard,
  type DashboardWrite,
} from '../schemas/dashboard';
import type { CallOptions } from './http';
import { itemByItem } from './item-list';
import {
  alertOperations,
  openSourceAccess,
  type ObservabilityClientOptions,
} from './observability-alerts';
import { observabilityObjects, syncedObjects } from './observability-objects';
import { observabilityPaths as P } from './paths';
import { validateBody } from './validate-body';

export type { ObservabilityClientOptions };

type OpenSourceAccess = ReturnType<typeof openSourceAccess>;

export type ObservabilityClient = ReturnType<typeof createObservabilityClient>;

/** Dashboards over `/api/v2` (spec 4.6, 4.7). */
function dashboardOperations(call: OpenSourceAccess['call']) {
  return {
    async listDashboards(opts?: CallOptions): Promise<Dashboard[]> {
      return call(
        { method: 'GET', path: P.collection('dashboards'), schema: itemByItem(z.array(dashboard)) },
        opts,
      );
    },
    /** POST is not idempotent: retried only when the server surely did not process it. */
    async createDashboard(body: DashboardWrite, opts?: CallOptions): Promise<Dashboard> {
      const path = P.collection('dashboards');
      const valid = validateBody(dashboardWrite, body, 'POST', path);
      return call({ method: 'POST', path, body: valid, schema: dashboard }, opts);
    },
    async getDashboard(id: string, opts?: CallOptions): Promise<Dashboard> {
      return call({ method: 'GET', path: P.item('dashboards', id), schema: dashboard }, opts);
    },
    /** Spec 4.7. Replaces the whole tile list: send existing tile ids or their alerts die. */
    async updateDashboard(
      id: string,
      body: DashboardWrite,
      opts?: CallOptions,
    ): Promise<Dashboard> {
      const path = P.item('dashboards', id);
      const valid = validateBody(dashboardWrite, body, 'PUT', path);
      return call({ method: 'PUT', path, body: valid, schema: dashboard }, opts);
    },
    async deleteDashboard(id: string, opts?: CallOptions): Promise<void> {
      return call({ method: 'DELETE', path: P.item('dashboards', id), schema: null }, opts);
    },
  };
}

/**
 * Client for the observability API (`/api/v2`, Bearer token): the open-source deployment serves
 * everything here (spec 4.6, 4.7, and the objects of observability-objects.ts).
 */
export function createObservabilityClient(options: ObservabilityClientOptions) {
  const { core, call, access } = openSourceAccess(options);
  return {
    close: () => core.close(),
    ...observabilityObjects({
      ...access,
      validatePath: () => Promise.resolve(P.dashboardValidate()),
    }),
    ...alertOperations(access, true),
    ...dashboardOperations(call),
  };
}

/** The same API with only what a dashboard sync calls (syncedObjects: no dry run). */
export function createSyncClient(options: ObservabilityClientOptions) {
  const { core, call, access } = openSourceAccess(options);
  return {
    close: () => core.close(),
    ...syncedObjects(access),
    ...alertOperations(access, true),
    ...dashboardOperations(call),
  };
}
export type SyncClient = ReturnType<typeof createSyncClient>;
