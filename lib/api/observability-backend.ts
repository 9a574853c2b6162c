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
import type { AlertManagementOperations } from './management/alerts';
import type { ObservabilityOperations } from './management/observability';
import type { AlertClient } from './observability-alerts';
import type { ObservabilityClient } from './observability-client';
import type { ObservabilityObjects } from './observability-objects';

/** The shared object operations, each one the client has (a client has more: close, dashboards, ...). */
const OBJECT_OPERATIONS = [
  'validateDashboard',
  'listWebhooks',
  'createWebhook',
  'updateWebhook',
  'deleteWebhook',
  'listSavedSearches',
  'getSavedSearch',
  'createSavedSearch',
  'updateSavedSearch',
  'deleteSavedSearch',
  'listSources',
  'getSource',
  'createSource',
  'updateSource',
  'deleteSource',
] as const satisfies readonly (keyof ObservabilityObjects)[];

function pickObjects(objects: Partial<ObservabilityObjects>): Partial<ObservabilityObjects> {
  const picked: Record<string, unknown> = {};
  for (const name of OBJECT_OPERATIONS) if (objects[name]) picked[name] = objects[name];
  return picked;
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

/** What alert provisioning reaches: alerts and nothing else. */
export type AlertBackend = Pick<
  ObservabilityBackend,
  'mode' | 'listAlerts' | 'createAlert' | 'updateAlert' | 'deleteAlert'
>;

/** How a backend is built: the clients of a kit (its management operations, its client). */
export interface BackendOptions<M, C> {
  readonly mode: ObservabilityMode;
  /** Required in managed mode: every call goes through it (one credential, the Basic key). */
  readonly management?: M;
  /** Required in open-source mode; unused in managed mode (the bearer token is optional). */
  readonly observability?: C;
  /** Required in managed mode: the service whose observability objects are managed. */
  readonly serviceId?: string;
}

/** The dashboards and alerts of a management kit, and whichever of the other objects it has. */
type DashboardManagement = Pick<
  ObservabilityOperations,
  | 'alerts'
  | 'listDashboards'
  | 'getDashboard'
  | 'createDashboard'
  | 'updateDashboard'
  | 'deleteDashboard'
> & { observability(serviceId: string): Partial<ObservabilityObjects> };

/** The dashboards and alerts of an open-source client, and whichever of the other objects it has. */
type DashboardClient = Pick<
  ObservabilityClient,
  | 'listDashboards'
  | 'getDashboard'
  | 'createDashboard'
  | 'updateDashboard'
  | 'deleteDashboard'
  | 'listAlerts'
  | 'getAlert'
  | 'createAlert'
  | 'updateAlert'
  | 'deleteAlert'
> &
  Partial<ObservabilityObjects>;

/** The full client (the CLI's) or the sync's (lib/api/kit.ts SYNC_KIT: no dry run). */
export type ObservabilityBackendOptions = BackendOptions<DashboardManagement, DashboardClient>;

/** The one client a backend goes through in its mode, checked. */
function reach<M, C>(
  options: BackendOptions<M, C>,
): { mode: 'open-source'; client: C } | { mode: 'managed'; management: M; serviceId: string } {
  if (options.mode === 'open-source') {
    const client = options.observability;
    if (!client) {
      throw new ConfigError('observability mode "open-source" needs an observability client');
    }
    return { mode: 'open-source', client };
  }
  if (options.mode !== 'managed') {
    throw new ConfigError(
      `observability mode must be "managed" or "open-source", got "${String(options.mode)}"`,
    );
  }
  const management = options.management;
  const serviceId = options.serviceId;
  if (!management) throw new ConfigError('observability mode "managed" needs a management client');
  if (!serviceId) throw new ConfigError('observability mode "managed" needs a serviceId');
  return { mode: 'managed', management, serviceId };
}

/**
 * managed: everything through the management API for one service, updates included (its PUT
 * takes the same Basic key, API-FACTS), so no bearer token is needed. open-source: everything
 * through `/api/v2` with the bearer token.
 */
export function createObservabilityBackend(
  options: ObservabilityBackendOptions,
): ObservabilityBackend {
  const to = reach(options);
  if (to.mode === 'open-source') {
    const obs = to.client;
    return {
      mode: 'open-source',
      listDashboards: (o) => obs.listDashboards(o),
      getDashboard: (id, o) => obs.getDashboard(id, o),
      createDashboard: (body, o) => obs.createDashboard(body, o),
      updateDashboard: (id, body, o) => obs.updateDashboard(id, body, o),
      deleteDashboard: (id, o) => obs.deleteDashboard(id, o),
      listAlerts: (o) => obs.listAlerts(o),
      getAlert: (id, o) => obs.getAlert(id, o),
      createAlert: (body, o) => obs.createAlert(body, o),
      updateAlert: (id, body, o) => obs.updateAlert(id, body, o),
      deleteAlert: (id, o) => obs.deleteAlert(id, o),
      ...pickObjects(obs),
    };
  }
  const { management: mgmt, serviceId: sid } = to;
  return {
    mode: 'managed',
    listDashboards: (o) => mgmt.listDashboards(sid, o),
    getDashboard: (id, o) => mgmt.getDashboard(sid, id, o),
    createDashboard: (body, o) => mgmt.createDashboard(sid, body, o),
    updateDashboard: (id, body, o) => mgmt.updateDashboard(sid, id, body, o),
    deleteDashboard: (id, o) => mgmt.deleteDashboard(sid, id, o),
    ...mgmt.alerts(sid),
    ...pickObjects(mgmt.observability(sid)),
  };
}

/** Alerts alone, in either mode: provision-alerts' backend (its kit carries nothing else). */
export function createAlertBackend(
  options: BackendOptions<AlertManagementOperations, AlertClient>,
): AlertBackend {
  const to = reach(options);
  const alerts = to.mode === 'open-source' ? to.client : to.management.alerts(to.serviceId);
  return {
    mode: to.mode,
    listAlerts: (o) => alerts.listAlerts(o),
    createAlert: (body, o) => alerts.createAlert(body, o),
    updateAlert: (id, body, o) => alerts.updateAlert(id, body, o),
    deleteAlert: (id, o) => alerts.deleteAlert(id, o),
  };
}
