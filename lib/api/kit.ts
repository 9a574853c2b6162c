/**
 * Which operations a caller's clients carry, so that a function bundles only those (and their
 * schemas): the management groups bound to the one connection of its key and, for callers that
 * reach dashboards and alerts, the open-source client and the backend over either API.
 * lib/clients.ts builds clients from a kit; lib/all-clients.ts has every operation (the CLI's).
 */
import { ConfigError } from '../errors';
import type { ManagementConnection } from './management/connection';
import { observabilityOperations, type ObservabilityOperations } from './management/observability';
import {
  createObservabilityBackend,
  type ObservabilityBackend,
  type ObservabilityMode,
} from './observability-backend';
import {
  createObservabilityClient,
  type ObservabilityClient,
  type ObservabilityClientOptions,
} from './observability-client';

/** How dashboards and alerts are reached, in either deployment mode. */
export interface DashboardsAndAlerts {
  readonly client: (options: ObservabilityClientOptions) => ObservabilityClient;
  /** The backend of one service over the clients a caller has (lib/clients.ts). */
  readonly backend: (clients: BackendClients, serviceId?: string) => ObservabilityBackend;
}

/** What a backend is made from: the deployment mode and the clients of either API. */
export interface BackendClients {
  readonly mode: ObservabilityMode;
  readonly observability: ObservabilityClient | undefined;
  /** The management client, or a ConfigError naming what to set. */
  readonly requireManagement: () => object;
}

export interface ClientKit<M extends object> {
  readonly management: (connection: ManagementConnection) => M;
  /** Only with management operations that include ObservabilityOperations (managed mode). */
  readonly observability?: DashboardsAndAlerts;
}

export const DASHBOARDS_AND_ALERTS: DashboardsAndAlerts = {
  client: createObservabilityClient,
  backend: backendOf,
};

/**
 * The backend of one service, or a ConfigError naming the settings it lacks. Here rather than in
 * lib/clients.ts so that a function without dashboards and alerts does not bundle it.
 */
function backendOf(clients: BackendClients, serviceId?: string): ObservabilityBackend {
  // Managed mode needs only the management key; the bearer token is for open-source.
  if (clients.mode === 'open-source' && !clients.observability) {
    throw new ConfigError(
      'the observability API is not configured: set CLOUDOPS_OBSERVABILITY_URL and ' +
        'CLOUDOPS_OBSERVABILITY_TOKEN (or CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID)',
    );
  }
  if (clients.mode === 'managed' && !serviceId) {
    throw new ConfigError(
      'observability mode "managed" reaches dashboards and alerts through a service: set CLOUDOPS_SERVICE_ID',
    );
  }
  return createObservabilityBackend({
    mode: clients.mode,
    management:
      clients.mode === 'managed' ? managedObjects(clients.requireManagement()) : undefined,
    observability: clients.observability,
    serviceId,
  });
}

/** The management operations on dashboards and alerts (a kit with `observability` has them). */
function managedObjects(management: object): ObservabilityOperations {
  if (!('listDashboards' in management)) throw new ConfigError(WITHOUT_DASHBOARDS);
  return management as ObservabilityOperations;
}

/** A backend asked of clients whose kit has no dashboard and alert operations. */
export const WITHOUT_DASHBOARDS =
  'these clients were made without the dashboard and alert operations';

/** Dashboards and alerts and nothing else (the sync and provision-alerts). */
export const OBSERVABILITY_KIT: ClientKit<ObservabilityOperations> = {
  management: observabilityOperations,
  observability: DASHBOARDS_AND_ALERTS,
};
