/**
 * Builds the API clients from plain settings, the same way for the CLI and the functions
 * (which differ only in where credentials come from).
 */
import {
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
  type ManagementClient,
  type ObservabilityBackend,
  type ObservabilityClient,
  type ObservabilityMode,
  type RateLimitConfig,
} from './api';
import type { ManagementCredentialProvider, ObservabilityCredentialProvider } from './credentials';
import { ConfigError } from './errors';
import type { Logger } from './log';

export interface ClientSettings {
  readonly apiUrl?: string;
  readonly observabilityUrl?: string;
  readonly mode: ObservabilityMode;
  readonly management?: ManagementCredentialProvider;
  readonly observability?: ObservabilityCredentialProvider;
  readonly managementRateLimit?: RateLimitConfig | false;
  readonly observabilityRateLimit?: RateLimitConfig | false;
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}

export interface Clients {
  readonly management?: ManagementClient;
  readonly observability?: ObservabilityClient;
  /** The management client, or a ConfigError naming what to set. */
  requireManagement(): ManagementClient;
  /** Dashboards and alerts of one service, through the configured deployment mode. */
  backend(serviceId?: string): ObservabilityBackend;
  close(): void;
}

export function createClients(settings: ClientSettings): Clients {
  const management =
    settings.apiUrl && settings.management
      ? createManagementClient({
          baseUrl: settings.apiUrl,
          credentials: settings.management,
          rateLimit: settings.managementRateLimit,
          timeoutMs: settings.timeoutMs,
          logger: settings.logger,
        })
      : undefined;
  const observability =
    settings.observabilityUrl && settings.observability
      ? createObservabilityClient({
          baseUrl: settings.observabilityUrl,
          credentials: settings.observability,
          rateLimit: settings.observabilityRateLimit,
          timeoutMs: settings.timeoutMs,
          logger: settings.logger,
        })
      : undefined;
  return {
    management,
    observability,
    requireManagement() {
      if (!management) {
        throw new ConfigError(
          'the management API is not configured: set CLOUDOPS_API_URL and a key ' +
            '(CLOUDOPS_KEY_ID + CLOUDOPS_KEY_SECRET + CLOUDOPS_ORGANIZATION_ID, or CLOUDOPS_KEY_SECRET_ID)',
        );
      }
      return management;
    },
    backend(serviceId) {
      if (!observability) {
        throw new ConfigError(
          'the observability API is not configured: set CLOUDOPS_OBSERVABILITY_URL and ' +
            'CLOUDOPS_OBSERVABILITY_TOKEN (or CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID)',
        );
      }
      if (settings.mode === 'managed' && !serviceId) {
        throw new ConfigError(
          'observability mode "managed" reaches dashboards and alerts through a service: set CLOUDOPS_SERVICE_ID',
        );
      }
      return createObservabilityBackend({
        mode: settings.mode,
        management: settings.mode === 'managed' ? this.requireManagement() : undefined,
        observability,
        serviceId,
      });
    },
    close() {
      management?.close();
      observability?.close();
    },
  };
}
