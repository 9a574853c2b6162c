import * as z from 'zod/mini';
import {
  dashboard,
  dashboardWrite,
  type Dashboard,
  type DashboardWrite,
} from '../../schemas/dashboard';
import type { CreateAlertBody, UpdateAlertBody } from '../../schemas/alert';
import type { CallOptions } from '../http';
import { itemByItem } from '../item-list';
import {
  observabilityObjects,
  syncedObjects,
  type ObservabilityObjects,
} from '../observability-objects';
import { validateBody } from '../validate-body';
import { alertManagementOperations, serviceAccess } from './alerts';
import type { ManagementConnection } from './connection';
import * as P from './paths';

/**
 * The observability objects of one service beyond dashboards and alerts, with the Basic key
 * alone: validate, webhooks, saved searches, sources (August 2026 contract).
 */
function serviceObjects(connection: ManagementConnection, serviceId: string): ObservabilityObjects {
  const { organizationId: org } = connection;
  return observabilityObjects({
    ...serviceAccess(connection, serviceId),
    validatePath: async () => P.dashboardValidate(await org(), serviceId),
  });
}

/** One service's dashboards and alerts through the management API (spec 4.5). */
function dashboardManagement(connection: ManagementConnection) {
  const { organizationId: org, call } = connection;
  const { alerts } = alertManagementOperations(connection);
  return {
    /** One service's alerts (the operations below, without the service argument). */
    alerts,
    async listDashboards(serviceId: string, opts?: CallOptions): Promise<Dashboard[]> {
      const path = P.observability(await org(), serviceId, 'dashboards');
      return call({ method: 'GET', path, schema: itemByItem(z.array(dashboard)) }, opts);
    },
    async createDashboard(
      serviceId: string,
      body: DashboardWrite,
      opts?: CallOptions,
    ): Promise<Dashboard> {
      const path = P.observability(await org(), serviceId, 'dashboards');
      const valid = validateBody(dashboardWrite, body, 'POST', path);
      return call({ method: 'POST', path, body: valid, schema: dashboard }, opts);
    },
    async getDashboard(serviceId: string, id: string, opts?: CallOptions): Promise<Dashboard> {
      const path = P.observabilityItem(await org(), serviceId, 'dashboards', id);
      return call({ method: 'GET', path, schema: dashboard }, opts);
    },
    async updateDashboard(
      serviceId: string,
      id: string,
      body: DashboardWrite,
      opts?: CallOptions,
    ): Promise<Dashboard> {
      const path = P.observabilityItem(await org(), serviceId, 'dashboards', id);
      const valid = validateBody(dashboardWrite, body, 'PUT', path);
      return call({ method: 'PUT', path, body: valid, schema: dashboard }, opts);
    },
    async deleteDashboard(serviceId: string, id: string, opts?: CallOptions): Promise<void> {
      const path = P.observabilityItem(await org(), serviceId, 'dashboards', id);
      return call({ method: 'DELETE', path, schema: null }, opts);
    },
  };
}

/**
 * What a dashboard sync reaches: dashboards, alerts and the objects it writes (syncedObjects:
 * no dry run), so its bundle carries nothing else.
 */
export function syncManagementOperations(connection: ManagementConnection) {
  return {
    ...dashboardManagement(connection),
    observability: (serviceId: string) => syncedObjects(serviceAccess(connection, serviceId)),
  };
}
export type SyncManagementOperations = ReturnType<typeof syncManagementOperations>;

export type ObservabilityOperations = ReturnType<typeof observabilityOperations>;

/** Observability objects through the management API (spec 4.5). */
export function observabilityOperations(connection: ManagementConnection) {
  const management = dashboardManagement(connection);
  const { alerts } = management;
  return {
    ...management,
    /** Everything else of one service's observability objects (see serviceObjects). */
    observability: (serviceId: string) => serviceObjects(connection, serviceId),
    /** Every alert of the service (the list is described as paginated: accept both shapes). */
    listAlerts: (serviceId: string, opts?: CallOptions) => alerts(serviceId).listAlerts(opts),
    listSources: (serviceId: string, opts?: CallOptions) =>
      serviceObjects(connection, serviceId).listSources(opts),
    createAlert: (serviceId: string, body: CreateAlertBody, opts?: CallOptions) =>
      alerts(serviceId).createAlert(body, opts),
    getAlert: (serviceId: string, id: string, opts?: CallOptions) =>
      alerts(serviceId).getAlert(id, opts),
    updateAlert: (serviceId: string, id: string, body: UpdateAlertBody, opts?: CallOptions) =>
      alerts(serviceId).updateAlert(id, body, opts),
    deleteAlert: (serviceId: string, id: string, opts?: CallOptions) =>
      alerts(serviceId).deleteAlert(id, opts),
  };
}
