import * as z from 'zod/mini';
import {
  alert,
  createAlertBody,
  updateAlertBody,
  type Alert,
  type CreateAlertBody,
  type UpdateAlertBody,
} from '../../schemas/alert';
import {
  dashboard,
  dashboardWrite,
  type Dashboard,
  type DashboardWrite,
} from '../../schemas/dashboard';
import type { CallOptions } from '../http';
import { itemByItem } from '../item-list';
import { observabilityObjects, type ObservabilityObjects } from '../observability-objects';
import { PAGE_LIMIT, pagedList, toPage } from '../pages';
import { withPage } from '../paths';
import * as P from './paths';
import { validateBody } from '../validate-body';
import type { ManagementConnection } from './connection';

/**
 * The observability objects of one service beyond dashboards and alerts, with the Basic key
 * alone: validate, webhooks, saved searches, sources (August 2026 contract).
 */
function serviceObjects(
  { organizationId: org, call }: ManagementConnection,
  serviceId: string,
): ObservabilityObjects {
  return observabilityObjects({
    collection: async (resource) => P.observability(await org(), serviceId, resource),
    item: async (resource, id) => P.observabilityItem(await org(), serviceId, resource, id),
    validatePath: async () => P.dashboardValidate(await org(), serviceId),
    call,
    async page(path, item, offset, opts) {
      // The document declares no paging parameters: the first page is asked as declared.
      const asked = offset === 0 ? path : withPage(path, PAGE_LIMIT, offset);
      const list = await call({ method: 'GET', path: asked, schema: pagedList(item) }, opts);
      return toPage(list.data, list.meta);
    },
  });
}

export type ObservabilityOperations = ReturnType<typeof observabilityOperations>;

/** Observability objects through the management API (spec 4.5). */
export function observabilityOperations(connection: ManagementConnection) {
  const { organizationId: org, call } = connection;
  return {
    /** Everything else of one service's observability objects (see serviceObjects). */
    observability: (serviceId: string) => serviceObjects(connection, serviceId),
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
    /** Every alert of the service (the list is described as paginated: accept both shapes). */
    listAlerts: (serviceId: string, opts?: CallOptions): Promise<Alert[]> =>
      serviceObjects(connection, serviceId).listAlerts(opts),
    listSources: (serviceId: string, opts?: CallOptions) =>
      serviceObjects(connection, serviceId).listSources(opts),
    async createAlert(
      serviceId: string,
      body: CreateAlertBody,
      opts?: CallOptions,
    ): Promise<Alert> {
      const path = P.observability(await org(), serviceId, 'alerts');
      const valid = validateBody(createAlertBody, body, 'POST', path);
      return call({ method: 'POST', path, body: valid, schema: alert }, opts);
    },
    async getAlert(serviceId: string, id: string, opts?: CallOptions): Promise<Alert> {
      const path = P.observabilityItem(await org(), serviceId, 'alerts', id);
      return call({ method: 'GET', path, schema: alert }, opts);
    },
    async updateAlert(
      serviceId: string,
      id: string,
      body: UpdateAlertBody,
      opts?: CallOptions,
    ): Promise<Alert> {
      const path = P.observabilityItem(await org(), serviceId, 'alerts', id);
      const valid = validateBody(updateAlertBody, body, 'PUT', path);
      return call({ method: 'PUT', path, body: valid, schema: alert }, opts);
    },
    async deleteAlert(serviceId: string, id: string, opts?: CallOptions): Promise<void> {
      const path = P.observabilityItem(await org(), serviceId, 'alerts', id);
      return call({ method: 'DELETE', path, schema: null }, opts);
    },
  };
}
