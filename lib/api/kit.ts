/**
 * Which operations a caller's clients carry, so that a function bundles only those (and their
 * schemas): the management groups bound to the one connection of its key and, for callers that
 * reach dashboards and alerts, the open-source client and the backend over either API.
 * lib/clients.ts builds clients from a kit; lib/all-clients.ts has every operation (the CLI's).
 */
import type { ManagementConnection } from './management/connection';
import { observabilityOperations, type ObservabilityOperations } from './management/observability';
import {
  createObservabilityBackend,
  type ObservabilityBackend,
  type ObservabilityBackendOptions,
} from './observability-backend';
import {
  createObservabilityClient,
  type ObservabilityClient,
  type ObservabilityClientOptions,
} from './observability-client';

/** How dashboards and alerts are reached, in either deployment mode. */
export interface DashboardsAndAlerts {
  readonly client: (options: ObservabilityClientOptions) => ObservabilityClient;
  readonly backend: (options: ObservabilityBackendOptions) => ObservabilityBackend;
}

export interface ClientKit<M extends object> {
  readonly management: (connection: ManagementConnection) => M;
  /** Only with management operations that include ObservabilityOperations (managed mode). */
  readonly observability?: DashboardsAndAlerts;
}

export const DASHBOARDS_AND_ALERTS: DashboardsAndAlerts = {
  client: createObservabilityClient,
  backend: createObservabilityBackend,
};

/** Dashboards and alerts and nothing else (the sync and provision-alerts). */
export const OBSERVABILITY_KIT: ClientKit<ObservabilityOperations> = {
  management: observabilityOperations,
  observability: DASHBOARDS_AND_ALERTS,
};
