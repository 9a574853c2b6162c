/** The observability backend from connection settings and credential providers (CLI and Lambda). */
import {
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
  type ObservabilityBackend,
} from '../api';
import type { ConnectionEnv } from '../config';
import type { ManagementCredentialProvider, ObservabilityCredentialProvider } from '../credentials';
import { ConfigError } from '../errors';
import type { Logger } from '../log';

export function backendFromConnection(
  config: ConnectionEnv,
  credentials: {
    management?: ManagementCredentialProvider;
    observability: ObservabilityCredentialProvider;
  },
  logger?: Logger,
): ObservabilityBackend {
  if (!config.CLOUDOPS_OBSERVABILITY_URL) {
    throw new ConfigError('missing configuration: set CLOUDOPS_OBSERVABILITY_URL');
  }
  const observability = createObservabilityClient({
    baseUrl: config.CLOUDOPS_OBSERVABILITY_URL,
    credentials: credentials.observability,
    rateLimit: config.CLOUDOPS_OBSERVABILITY_RATE_LIMIT,
    timeoutMs: config.CLOUDOPS_REQUEST_TIMEOUT_MS,
    logger,
  });
  if (config.CLOUDOPS_OBSERVABILITY_MODE === 'open-source') {
    return createObservabilityBackend({ mode: 'open-source', observability });
  }
  const missing: string[] = (['CLOUDOPS_API_URL', 'CLOUDOPS_SERVICE_ID'] as const).filter(
    (n) => !config[n],
  );
  if (!credentials.management)
    missing.push('CLOUDOPS_KEY_SECRET_ID (or CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET)');
  if (missing.length > 0) {
    throw new ConfigError(`missing configuration for managed mode: set ${missing.join(', ')}`);
  }
  const management = createManagementClient({
    baseUrl: config.CLOUDOPS_API_URL!,
    credentials: credentials.management!,
    organizationId: config.CLOUDOPS_ORGANIZATION_ID,
    rateLimit: config.CLOUDOPS_MANAGEMENT_RATE_LIMIT,
    timeoutMs: config.CLOUDOPS_REQUEST_TIMEOUT_MS,
    logger,
  });
  return createObservabilityBackend({
    mode: 'managed',
    management,
    observability,
    // Alerts belong to one service: the first of the list (as for dashboards).
    serviceId: config.CLOUDOPS_SERVICE_ID![0],
  });
}
