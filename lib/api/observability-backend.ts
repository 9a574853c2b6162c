import type { ObservabilityMode } from '../config';
import { ConfigError } from '../errors';
import type {
  Alert,
  CreateAlertBody,
  Dashboard,
  DashboardWrite,
  UpdateAlertBody,
} from '../schemas';
import type { CallOptions } from './http';
import type { ObservabilityOperations } from './management/observability';
import type { ObservabilityClient } from './observability-client';
import type { ObservabilityObjects } from './observability-objects';

/** Only the shared object operations of a client (a client has more: close, dashboards, ...). */
function pickObjects(objects: ObservabilityObjects): ObservabilityObjects {
  return {
    validateDashboard: (body, o) => objects.validateDashboard(body, o),
    listWebhooks: (o) => objects.listWebhooks(o),
    createWebhook: (body, o) => objects.createWebhook(body, o),
    updateWebhook: (id, body, o) => objects.updateWebhook(id, body, o),
    deleteWebhook: (id, o) => objects.deleteWebhook(id, o),
    listSavedSearches: (o) => objects.listSavedSearches(o),
    getSavedSearch: (id, o) => objects.getSavedSearch(id, o),
    createSavedSearch: (body, o) => objects.createSavedSearch(body, o),
    updateSavedSearch: (id, body, o) => objects.updateSavedSearch(id, body, o),
    deleteSavedSearch: (id, o) => objects.deleteSavedSearch(id, o),
    listSources: (o) => objects.listSources(o),
    getSource: (id, o) => objects.getSource(id, o),
    createSource: (body, o) => objects.createSource(body, o),
    updateSource: (id, body, o) => objects.updateSource(id, body, o),
    deleteSource: (id, o) => objects.deleteSource(id, o),
    listAlerts: (o) => objects.listAlerts(o),
  };
}

/**
 * The one surface dashboard sync and alert provisioning use, whatever the deployment. The
 * operations beyond dashboards and alerts are optional so test fakes need not list them; both
 * real backends have every one.
 */
export interface ObservabilityBackend extends Partial<ObservabilityObjects> {
  readonly mode: ObservabilityMode;
  listDashboards(opts?: CallOptions): Promise<Dashboard[]>;
  getDashboard(id: string, opts?: CallOptions): Promise<Dashboard>;
  createDashboard(body: DashboardWrite, opts?: CallOptions): Promise<Dashboard>;
  updateDashboard(id: string, body: DashboardWrite, opts?: CallOptions): Promise<Dashboard>;
  deleteDashboard(id: string, opts?: CallOptions): Promise<void>;
  listAlerts(opts?: CallOptions): Promise<Alert[]>;
  getAlert(id: string, opts?: CallOptions): Promise<Alert>;
  createAlert(body: CreateAlertBody, opts?: CallOptions): Promise<Alert>;
  updateAlert(id: string, body: UpdateAlertBody, opts?: CallOptions): Promise<Alert>;
  deleteAlert(id: string, opts?: CallOptions): Promise<void>;
}

/** CLOUDOPS_OBSERVABILITY_MODE, declared in lib/config.ts. */
export type { ObservabilityMode };

export interface ObservabilityBackendOptions {
  readonly mode: ObservabilityMode;
  /** Required in managed mode: every call goes through it (one credential, the Basic key). */
  readonly management?: ObservabilityOperations;
  /** Required in open-source mode; unused in managed mode (the bearer token is optional). */
  readonly observability?: ObservabilityClient;
  /** Required in managed mode: the service whose observability objects are managed. */
  readonly serviceId?: string;
}

/**
 * managed: everything through the management API for one service, updates included (its PUT
 * takes the same Basic key, API-FACTS), so no bearer token is needed. open-source: everything
 * through `/api/v2` with the bearer token.
 */
export function createObservabilityBackend(
  options: ObservabilityBackendOptions,
): ObservabilityBackend {
  if (options.mode === 'open-source') {
    const obs = options.observability;
    if (!obs) {
      throw new ConfigError('observability mode "open-source" needs an observability client');
    }
    return {
      mode: 'open-source',
      listDashboards: (o) => obs.listDashboards(o),
      getDashboard: (id, o) => obs.getDashboard(id, o),
      createDashboard: (body, o) => obs.createDashboard(body, o),
      updateDashboard: (id, body, o) => obs.updateDashboard(id, body, o),
      deleteDashboard: (id, o) => obs.deleteDashboard(id, o),
      getAlert: (id, o) => obs.getAlert(id, o),
      createAlert: (body, o) => obs.createAlert(body, o),
      updateAlert: (id, body, o) => obs.updateAlert(id, body, o),
      deleteAlert: (id, o) => obs.deleteAlert(id, o),
      ...pickObjects(obs),
    };
  }
  if (options.mode !== 'managed') {
    throw new ConfigError(
      `observability mode must be "managed" or "open-source", got "${String(options.mode)}"`,
    );
  }
  const mgmt = options.management;
  const sid = options.serviceId;
  if (!mgmt) throw new ConfigError('observability mode "managed" needs a management client');
  if (!sid) throw new ConfigError('observability mode "managed" needs a serviceId');
  return {
    mode: 'managed',
    listDashboards: (o) => mgmt.listDashboards(sid, o),
    getDashboard: (id, o) => mgmt.getDashboard(sid, id, o),
    createDashboard: (body, o) => mgmt.createDashboard(sid, body, o),
    updateDashboard: (id, body, o) => mgmt.updateDashboard(sid, id, body, o),
    deleteDashboard: (id, o) => mgmt.deleteDashboard(sid, id, o),
    getAlert: (id, o) => mgmt.getAlert(sid, id, o),
    createAlert: (body, o) => mgmt.createAlert(sid, body, o),
    updateAlert: (id, body, o) => mgmt.updateAlert(sid, id, body, o),
    deleteAlert: (id, o) => mgmt.deleteAlert(sid, id, o),
    ...pickObjects(mgmt.observability(sid)),
  };
}
