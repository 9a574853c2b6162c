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
  type BackendOptions,
  type ObservabilityBackend,
} from './observability-backend';
import {
  createObservabilityClient,
  type ObservabilityClient,
  type ObservabilityClientOptions,
} from './observability-client';

/**
 * How the observability objects are reached in either deployment mode: the open-source client
 * `C`, and the backend `B` over it or over the kit's management operations `M` (managed mode).
 */
export interface ObservabilityReach<M, C extends { close(): void }, B> {
  readonly client: (options: ObservabilityClientOptions) => C;
  readonly backend: (options: BackendOptions<M, C>) => B;
}

/** Dashboards and alerts (and the other objects): the sync's and the CLI's. */
type DashboardsAndAlerts = ObservabilityReach<
  ObservabilityOperations,
  ObservabilityClient,
  ObservabilityBackend
>;

export interface ClientKit<
  M extends object,
  C extends { close(): void } = ObservabilityClient,
  B = ObservabilityBackend,
> {
  readonly management: (connection: ManagementConnection) => M;
  /** Only with management operations the backend goes through (managed mode). */
  readonly observability?: ObservabilityReach<M, C, B>;
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
