/**
 * One management credential's connection: the HTTP core (keep-alive, retries, the rate limit
 * shared by every client of that credential) and the organization its paths name. The
 * operations live beside it, one module per group (keys, pipes, observability, metrics), so a
 * function bundles only the groups it calls; management-client.ts binds them all.
 */
import type { CredentialProvider } from '../../credentials/types';
import type { ManagementAuth } from '../../schemas/secrets';
import { basicAuth } from '../auth';
import { httpCoreFor, type ApiRequest, type CallOptions, type HttpClientOptions } from '../http';
import { MANAGEMENT_RATE_LIMIT } from '../rate-limiter';

/** `baseUrl` is {base_url}, e.g. `https://api.example.com` (paths add `/v1/...`); the rate
 * limit defaults to 10 requests / 10 s per credential. */
export interface ManagementClientOptions extends HttpClientOptions {
  readonly credentials: CredentialProvider<ManagementAuth>;
  /** @default the credential's organizationId */
  readonly organizationId?: string;
}

/** What every group of operations shares: the organization, the request call, the logger. */
export interface ManagementConnection {
  readonly organizationId: () => Promise<string>;
  readonly call: <T>(req: ApiRequest<T>, opts?: CallOptions) => Promise<T>;
  readonly logger: HttpClientOptions['logger'];
  readonly close: () => void;
}

/** Connects to the management API (`/v1`, HTTP Basic with a management key). */
export function connectManagement(options: ManagementClientOptions): ManagementConnection {
  const core = httpCoreFor(options, {
    auth: basicAuth(options.credentials),
    envelope: 'management',
    rateLimit: MANAGEMENT_RATE_LIMIT,
  });
  return {
    organizationId: async () =>
      options.organizationId ?? (await options.credentials.get()).organizationId,
    call: (req, opts = {}) => core.request({ ...req, ...opts }),
    logger: options.logger,
    close: () => core.close(),
  };
}

/** `operations` bound to `connection`, with the organization and close of the connection. */
export function withOperations<M extends object>(
  connection: ManagementConnection,
  operations: (connection: ManagementConnection) => M,
): M & ManagementBasics {
  return {
    organizationId: connection.organizationId,
    close: connection.close,
    ...operations(connection),
  };
}

/** What every management client has, whatever its operations. */
export interface ManagementBasics {
  organizationId(): Promise<string>;
  close(): void;
}
