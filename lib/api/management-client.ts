/**
 * The whole management client: every group of operations bound to one connection (the CLI and
 * tests use it). A function binds only the groups it calls (lib/api/kit.ts), so its
 * bundle carries neither the other operations nor their schemas.
 */
import {
  connectManagement,
  withOperations,
  type ManagementClientOptions,
  type ManagementConnection,
} from './management/connection';
import { keyOperations } from './management/keys';
import { metricsOperations } from './management/metrics';
import { observabilityOperations } from './management/observability';
import { pipeOperations } from './management/pipes';

export type { ManagementClientOptions, ManagementConnection };
export type { ManagementBasics } from './management/connection';
export type { MetricsCallOptions } from './management/metrics';

/** Every management operation, bound to `connection`. */
export function everyManagementOperation(connection: ManagementConnection) {
  return {
    ...pipeOperations(connection),
    ...keyOperations(connection),
    ...observabilityOperations(connection),
    ...metricsOperations(connection),
  };
}

export type ManagementClient = ReturnType<typeof createManagementClient>;

/** Client for the management API (`/v1`, HTTP Basic with a management key): every operation. */
export function createManagementClient(options: ManagementClientOptions) {
  const connection = connectManagement(options);
  return withOperations(connection, everyManagementOperation);
}
