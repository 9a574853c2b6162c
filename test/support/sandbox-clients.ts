/**
 * API clients for a sandbox with test-chosen retry and timeouts (connectFromEnv cannot set the
 * retry policy, and the fault suite needs it fixed and jitter-free to be deterministic).
 */
import {
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
  type ManagementClient,
  type ObservabilityBackend,
  type ObservabilityClient,
  type RetryPolicy,
} from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import { keyAuthenticates } from '../../lib/keys';
import { managementAuth, observabilityTokenSecret } from '../../lib/schemas';
import type { SandboxInfo } from '../../sandbox/index';

export interface SandboxClientOptions {
  /** Names the credentials in messages. */
  label: string;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
}

export interface SandboxClients {
  management: ManagementClient;
  observability: ObservabilityClient;
  /** Managed mode as deployed: every call through the management API with the Basic key. */
  backend: ObservabilityBackend;
  close(): void;
}

/** The sandbox's seeded key, no client-side rate limiting (the tests size the sandbox's). */
export function sandboxManagementClient(
  info: SandboxInfo,
  { label, retry, timeoutMs }: SandboxClientOptions,
): ManagementClient {
  return createManagementClient({
    baseUrl: info.apiUrl,
    credentials: staticCredentials(
      `${label} key`,
      { organizationId: info.organizationId, keyId: info.keyId, keySecret: info.keySecret },
      managementAuth,
    ),
    rateLimit: false,
    retry,
    timeoutMs,
  });
}

export function sandboxClients(info: SandboxInfo, options: SandboxClientOptions): SandboxClients {
  const management = sandboxManagementClient(info, options);
  const observability = createObservabilityClient({
    baseUrl: info.observabilityUrl,
    credentials: staticCredentials(
      `${options.label} token`,
      { token: info.observabilityToken },
      observabilityTokenSecret,
    ),
    rateLimit: false,
    retry: options.retry,
    timeoutMs: options.timeoutMs,
  });
  const backend = createObservabilityBackend({
    mode: 'managed',
    management,
    observability,
    serviceId: info.serviceId,
  });
  return {
    management,
    observability,
    backend,
    close() {
      management.close();
      observability.close();
    },
  };
}

/** Whether the sandbox accepts this key (lib's probe; kept under this name for the tests). */
export const authenticates = keyAuthenticates;
