/** Settings of the functions that write alerts (env, read through lib/config.ts). */
import * as z from 'zod/mini';
import {
  primaryServiceId,
  readConnectionEnv,
  readEnv,
  requiredConnectionSettings,
  type ConnectionEnv,
  type ObservabilityMode,
} from '../config';
import { versionScope } from './versions';

export const provisionAlertsEnv = z.object({
  /** DynamoDB table of the newest event version per alert owner (out-of-order protection). */
  CLOUDOPS_ALERTS_VERSION_TABLE: z.optional(z.string().check(z.minLength(1))),
});

export function readProvisionAlertsEnv(
  env?: Record<string, string | undefined>,
): z.output<typeof provisionAlertsEnv> {
  return readEnv(provisionAlertsEnv, env);
}

/**
 * Where a function's dashboards and alerts live, and how it reaches them: the connection
 * settings, the APIs whose credentials it reads (managed mode: the management key only;
 * open-source: the token only), the service (the first configured one; open-source mode has
 * none) and the alert version-key scope there (versionScope()).
 */
export interface ObservabilityHome {
  connection: ConnectionEnv;
  needs: { management: boolean; observability: boolean };
  serviceId: string | undefined;
  scope: string;
}

export function readObservabilityHome(
  env?: Record<string, string | undefined>,
  options: {
    /** False when a ready backend is given (tests): nothing is required. @default true */
    requireConnection?: boolean;
    /** The ready backend's mode, when it differs from the env's. */
    mode?: ObservabilityMode;
  } = {},
): ObservabilityHome {
  const mode = readConnectionEnv(env).CLOUDOPS_OBSERVABILITY_MODE;
  const required =
    options.requireConnection === false
      ? []
      : requiredConnectionSettings(mode, { observability: true });
  const connection = readConnectionEnv(env, required);
  const serviceId = primaryServiceId(connection);
  const managed = mode === 'managed';
  return {
    connection,
    needs: { observability: !managed, management: managed },
    serviceId,
    scope: versionScope({
      mode: options.mode ?? mode,
      serviceId,
      observabilityUrl: connection.CLOUDOPS_OBSERVABILITY_URL,
    }),
  };
}
