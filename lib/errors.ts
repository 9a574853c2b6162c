import { redactText } from './redact';

/**
 * Root of cloudops' error tree. Messages are redacted at construction, so an error can be
 * logged or shown anywhere.
 */
export class CloudOpsError extends Error {
  override name = 'CloudOpsError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(redactText(message), options);
  }
}

/** Bad input from a user or system: a file, an event, a secret, a flag. Never retried. */
export class ValidationError extends CloudOpsError {
  override name = 'ValidationError';
  constructor(
    message: string,
    /** Where the bad input came from (file path, secret id, event id, request). */
    readonly source?: string,
    /** Field paths and what was expected, one per problem. */
    readonly issues: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Configuration (env, context) missing or invalid; names the setting. */
export class ConfigError extends CloudOpsError {
  override name = 'ConfigError';
}
