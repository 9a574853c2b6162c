import type * as z from 'zod/mini';
import { parseSecretValue } from './parse';
import type { CredentialProvider } from './types';

/**
 * Credentials given directly (the CLI passes values it read through lib/config.ts). Validated
 * once, here, so a bad value fails at start-up naming the setting; refresh() has nothing newer
 * to read and answers the same value.
 */
export function staticCredentials<S extends z.ZodMiniType>(
  label: string,
  value: unknown,
  schema: S,
): CredentialProvider<z.infer<S>> {
  const parsed = parseSecretValue(label, value, schema);
  return {
    label,
    get: () => Promise.resolve(parsed),
    refresh: () => Promise.resolve(parsed),
  };
}
