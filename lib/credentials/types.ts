import type { ManagementAuth, ObservabilityTokenSecret } from '../schemas';

/**
 * A source of one credential. `get` may serve from cache; `refresh` forces a re-read
 * (used once after a 401, e.g. when the key was rotated under a running function).
 */
export interface CredentialProvider<T> {
  /** Non-secret identity for logs, rate-limit buckets and errors (secret id or key id). */
  readonly label: string;
  get(): Promise<T>;
  refresh(): Promise<T>;
}

/** Clients need only the auth fields; a provider of the full key secret fits too. */
export type ManagementCredentialProvider = CredentialProvider<ManagementAuth>;
export type ObservabilityCredentialProvider = CredentialProvider<ObservabilityTokenSecret>;
