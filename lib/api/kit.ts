/**
 * Which operations a caller's clients carry, so that a function bundles only those (and their
 * schemas): the management groups bound to the one connection of its key and, for callers that
 * reach dashboards and alerts, the open-source client and the backend over either API.
 * lib/clients.ts builds clients from a kit; lib/all-clients.ts has every operation (the CLI's).
 */
import type { ManagementConnection } from './management/connection';
import {
  syncManagementOperations,
  type ObservabilityOperations,
  type SyncManagementOperations,
} from './management/observability';
import {
  createObservabilityBackend,
  type BackendOptions,
  type ObservabilityBackend,
} from './observability-backend';
import {
  createObservabilityClient,
  createSyncClient,
  type ObservabilityClient,
  type SyncClient,
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

/** Dashboards and alerts and every other object: the CLI's. */
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

/**
 * What the deployed dashboard sync calls, in either mode: dashboards, alerts, webhooks, saved
 * searches and the list of sources. It plans offline, so the dry run (validateDashboard) and its
 * schemas stay out of its bundle; the CLI validates through the full client (lib/all-clients.ts).
 */
export const SYNC_KIT: ClientKit<SyncManagementOperations, SyncClient> = {
  management: syncManagementOperations,
  observability: { client: createSyncClient, backend: createObservabilityBackend },
};
