/** The services `cloudops dashboards` works on (CLOUDOPS_SERVICE_ID, --service), one connection. */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ObservabilityBackend } from '../../lib/api';
import { UsageError } from '../args';
import { connectFromEnv } from '../connect';
import type { CliIO } from '../io';

/** The configured services and a backend for each, over one connection (one rate budget). */
export interface DashboardServices {
  /** CLOUDOPS_SERVICE_ID. */
  ids: readonly string[];
  /** `--service`, else the first configured service (`(default)` when none, open-source mode). */
  defaultService: string;
  backendFor(service: string): ObservabilityBackend;
  /** The rate limit the writes are paced to (managed: the key's; open-source: the token's). */
  rateLimit: { limit: number; windowMs: number };
  /** Where webhook files' `{ secret }` values are read. */
  secrets(): SecretsManagerClient;
  close(): void;
}

const NO_SERVICE = '(default)';

export function servicesFromEnv(env: CliIO['env'], service?: string): DashboardServices {
  const connection = connectFromEnv(env);
  try {
    const ids = connection.serviceIds;
    if (service !== undefined && !ids.includes(service))
      throw new UsageError(
        `--service ${service} is not configured (CLOUDOPS_SERVICE_ID: ${ids.join(', ') || 'none'})`,
      );
    const backends = new Map<string, ObservabilityBackend>();
    const { config } = connection;
    return {
      rateLimit:
        config.CLOUDOPS_OBSERVABILITY_MODE === 'open-source'
          ? config.CLOUDOPS_OBSERVABILITY_RATE_LIMIT
          : config.CLOUDOPS_MANAGEMENT_RATE_LIMIT,
      ids,
      defaultService: service ?? ids[0] ?? NO_SERVICE,
      backendFor(id) {
        let backend = backends.get(id);
        if (!backend) {
          backend = connection.clients.backend(id === NO_SERVICE ? undefined : id);
          backends.set(id, backend);
        }
        return backend;
      },
      secrets: () => connection.secrets(),
      close: () => connection.close(),
    };
  } catch (error) {
    connection.close();
    throw error;
  }
}
