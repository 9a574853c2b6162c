/**
 * Destinations that are secrets (a Slack URL carries its token; a webhook may carry a signing
 * secret). Deployed, they come from Secrets Manager through a cached credential provider;
 * locally they may be given as values. Either way they are registered for redaction and
 * re-read once when the receiver rejects them (rotated since the last read).
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type * as z from 'zod/mini';
import { ConfigError } from '../../errors';
import { secretsManagerCredentials } from '../../credentials/secrets-manager';
import { staticCredentials } from '../../credentials/static';
import type { CredentialProvider } from '../../credentials/types';
import { registerSecret } from '../../redact';
import { NotifyError, type SecretSource } from './types';

/** A secret id or values in env, not both (which one would win is not obvious). */
export function secretSource<T>(
  variables: { secretId: string; values: readonly string[] },
  secretId: string | undefined,
  value: T | undefined,
): SecretSource<T> | undefined {
  if (secretId && value) {
    throw new ConfigError(
      `invalid configuration: set ${variables.secretId} or its values in env (${variables.values.join(', ')}), not both`,
    );
  }
  if (secretId) return { secretId };
  return value ? { value } : undefined;
}

export function secretProvider<S extends z.ZodMiniType>(
  label: string,
  source: SecretSource<z.infer<S>>,
  schema: S,
  secretsManager: () => SecretsManagerClient,
): CredentialProvider<z.infer<S>> {
  return 'secretId' in source
    ? secretsManagerCredentials({ client: secretsManager(), secretId: source.secretId, schema })
    : staticCredentials(label, source.value, schema);
}

/** Answers that mean "this URL / signature is not (or no longer) accepted". */
const REJECTED = new Set([401, 403, 404, 410]);
const rejectedByStatus = (error: NotifyError) => REJECTED.has(error.status ?? 0);

/**
 * Send to the destination's current value; if the receiver rejects it (`rejected`, by default
 * a 401/403/404/410), re-read the secret once and send again when it changed (a Slack URL
 * replaced in Secrets Manager since the last read). Every string in the value is a secret.
 */
export async function sendToTarget<T extends object>(
  notifier: string,
  target: CredentialProvider<T>,
  send: (value: T) => Promise<void>,
  rejected: (error: NotifyError) => boolean = rejectedByStatus,
): Promise<void> {
  const read = async (fresh: boolean) => {
    try {
      const value = fresh ? await target.refresh() : await target.get();
      for (const field of Object.values(value))
        if (typeof field === 'string') registerSecret(field);
      return value;
    } catch (error) {
      throw new NotifyError(`could not read ${target.label}: ${(error as Error).message}`, {
        notifier,
      });
    }
  };
  const value = await read(false);
  try {
    await send(value);
  } catch (error) {
    if (!(error instanceof NotifyError) || !rejected(error)) throw error;
    const fresh = await read(true);
    if (JSON.stringify(fresh) === JSON.stringify(value)) throw error;
    await send(fresh);
  }
}
