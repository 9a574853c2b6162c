import type { CredentialProvider } from '../credentials/types';
import { registerSecret } from '../redact';
import type { ManagementAuth, ObservabilityTokenSecret } from '../schemas';

/** Produces the Authorization header; `fresh` forces a credential re-read (after a 401). */
export interface AuthScheme {
  /** Non-secret credential identity: rate-limit bucket key and log field. */
  readonly label: string;
  header(fresh: boolean): Promise<string>;
}

/** HTTP Basic: user = key ID, password = key secret (spec 5). */
export function basicAuth(provider: CredentialProvider<ManagementAuth>): AuthScheme {
  return {
    label: provider.label,
    async header(fresh) {
      const secret = fresh ? await provider.refresh() : await provider.get();
      registerSecret(secret.keySecret);
      const encoded = Buffer.from(`${secret.keyId}:${secret.keySecret}`, 'utf8').toString('base64');
      // The encoded form reveals the secret too: mask it wherever it might be echoed.
      registerSecret(encoded);
      return `Basic ${encoded}`;
    },
  };
}

/** Bearer token for the observability API at {stack_url}. */
export function bearerAuth(provider: CredentialProvider<ObservabilityTokenSecret>): AuthScheme {
  return {
    label: provider.label,
    async header(fresh) {
      const secret = fresh ? await provider.refresh() : await provider.get();
      registerSecret(secret.token);
      return `Bearer ${secret.token}`;
    },
  };
}
