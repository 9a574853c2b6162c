/**
 * Builds the API clients from plain settings, the same way for the CLI and the functions
 * (which differ only in where credentials come from).
 */
import type { Clock } from './api/clock';
import type { FetchLike } from './api/http';
import {
  connectManagement,
  withOperations,
  type ManagementBasics,
  type ManagementConnection,
} from './api/management/connection';
import type { everyManagementOperation } from './api/management-client';
import type { ObservabilityBackend, ObservabilityMode } from './api/observability-backend';
import type { ClientKit } from './api/kit';
import type { ObservabilityClient } from './api/observability-client';
import type { RateLimiterRegistry, RateLimitConfig } from './api/rate-limiter';
import type { ConnectionEnv } from './config';
import type { ManagementCredentialProvider, ObservabilityCredentialProvider } from './credentials';
// Not the index: it would load the middy middleware into the CLI.
import { staticCredentials } from './credentials/static';
import { ConfigError } from './errors';
import type { Logger } from './log';
import { managementAuth, observabilityTokenSecret } from './schemas/secrets';

type EveryManagementOperation = ReturnType<typeof everyManagementOperation>;

export interface ClientSettings {
  readonly apiUrl?: string;
  readonly observabilityUrl?: string;
  readonly mode: ObservabilityMode;
  readonly management?: ManagementCredentialProvider;
  readonly observability?: ObservabilityCredentialProvider;
  /** @default the management credential's organizationId */
  readonly organizationId?: string;
  /** Give up retrying one management call after this long (the watchdog retries next run). */
  readonly deadlineMs?: number;
  readonly managementRateLimit?: RateLimitConfig | false;
  readonly observabilityRateLimit?: RateLimitConfig | false;
  readonly timeoutMs?: number;
  readonly logger?: Logger;
  /** Management client's time source and limiter registry (a bench's fake clock). */
  readonly clock?: Clock;
  readonly limiters?: RateLimiterRegistry;
  /** Both clients' HTTP call (default node-fetch); `cloudops doctor` reads rate-limit headers. */
  readonly fetch?: FetchLike;
}

/** The default, every operation, is the CLI's (lib/all-clients.ts). */
export interface Clients<
  M extends object = EveryManagementOperation,
  C extends { close(): void } = ObservabilityClient,
  B = ObservabilityBackend,
> {
  readonly management?: M & ManagementBasics;
  readonly observability?: C;
  /** The management client, or a ConfigError naming what to set. */
  requireManagement(): M & ManagementBasics;
  /** Dashboards and alerts of one service, through the configured deployment mode. */
  backend(serviceId?: string): B;
  close(): void;
}

/**
 * The management client alone, or undefined without an API URL and a key: the key functions
 * need nothing else, and this spares them the dashboards and alerts side of createClients.
 */
export function createManagement<M extends object>(
  settings: ClientSettings,
  operations: (connection: ManagementConnection) => M,
): (M & ManagementBasics) | undefined {
  if (!settings.apiUrl || !settings.management) return undefined;
  return withOperations(
    connectManagement({
      baseUrl: settings.apiUrl,
      credentials: settings.management,
      organizationId: settings.organizationId,
      deadlineMs: settings.deadlineMs,
      rateLimit: settings.managementRateLimit,
      timeoutMs: settings.timeoutMs,
      logger: settings.logger,
      clock: settings.clock,
      limiters: settings.limiters,
      fetch: settings.fetch,
    }),
    operations,
  );
}

/** `management`, or a ConfigError naming what to set. */
export function requireManagement<M>(management: M | undefined): M {
  if (!management) {
    throw new ConfigError(
      'the management API is not configured: set CLOUDOPS_API_URL and a key ' +
        '(CLOUDOPS_KEY_ID + CLOUDOPS_KEY_SECRET + CLOUDOPS_ORGANIZATION_ID, or CLOUDOPS_KEY_SECRET_ID)',
    );
  }
  return management;
}

export function createClients<
  M extends object,
  C extends { close(): void } = ObservabilityClient,
  B = ObservabilityBackend,
>(settings: ClientSettings, kit: ClientKit<M, C, B>): Clients<M, C, B> {
  const management = createManagement(settings, kit.management);
  const observability =
    settings.observabilityUrl && settings.observability && kit.observability
      ? kit.observability.client({
          baseUrl: settings.observabilityUrl,
          credentials: settings.observability,
          rateLimit: settings.observabilityRateLimit,
          timeoutMs: settings.timeoutMs,
          logger: settings.logger,
          fetch: settings.fetch,
        })
      : undefined;
  // Plain functions, not methods using `this`: callers may pass `clients.backend` around.
  return {
    management,
    observability,
    requireManagement: () => requireManagement(management),
    backend(serviceId) {
      if (!kit.observability)
        throw new ConfigError('these clients were made without the dashboard and alert operations');
      // Managed mode needs only the management key; the bearer token is for open-source.
      if (settings.mode === 'open-source' && !observability) {
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
      return kit.observability.backend({
        mode: settings.mode,
        management: settings.mode === 'managed' ? requireManagement(management) : undefined,
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

/** The credential providers a caller loaded (from Secrets Manager, or values in env). */
export interface CredentialProviders {
  readonly management?: ManagementCredentialProvider | undefined;
  readonly observability?: ObservabilityCredentialProvider | undefined;
}

/** ClientSettings from the env contract of DESIGN.md and the credentials the caller has. */
export function clientSettings(
  config: ConnectionEnv,
  credentials: CredentialProviders,
  logger?: Logger,
): ClientSettings {
  return {
    apiUrl: config.CLOUDOPS_API_URL,
    observabilityUrl: config.CLOUDOPS_OBSERVABILITY_URL,
    mode: config.CLOUDOPS_OBSERVABILITY_MODE,
    management: credentials.management,
    observability: credentials.observability,
    organizationId: config.CLOUDOPS_ORGANIZATION_ID,
    managementRateLimit: config.CLOUDOPS_MANAGEMENT_RATE_LIMIT,
    observabilityRateLimit: config.CLOUDOPS_OBSERVABILITY_RATE_LIMIT,
    timeoutMs: config.CLOUDOPS_REQUEST_TIMEOUT_MS,
    logger,
  };
}

/**
 * Credentials given as values in env (CLOUDOPS_KEY_ID + CLOUDOPS_KEY_SECRET, and
 * CLOUDOPS_OBSERVABILITY_TOKEN): local runs and tests. Deployed functions use secret ids.
 */
export function envCredentials(config: ConnectionEnv): CredentialProviders {
  let management: ManagementCredentialProvider | undefined;
  if (config.CLOUDOPS_KEY_ID && config.CLOUDOPS_KEY_SECRET) {
    if (!config.CLOUDOPS_ORGANIZATION_ID) {
      throw new ConfigError('missing configuration: set CLOUDOPS_ORGANIZATION_ID');
    }
    management = staticCredentials(
      `key …${config.CLOUDOPS_KEY_ID.slice(-4)}`,
      {
        organizationId: config.CLOUDOPS_ORGANIZATION_ID,
        keyId: config.CLOUDOPS_KEY_ID,
        keySecret: config.CLOUDOPS_KEY_SECRET,
      },
      managementAuth,
    );
  }
  const observability = config.CLOUDOPS_OBSERVABILITY_TOKEN
    ? staticCredentials(
        'observability token',
        { token: config.CLOUDOPS_OBSERVABILITY_TOKEN },
        observabilityTokenSecret,
      )
    : undefined;
  return { management, observability };
}
