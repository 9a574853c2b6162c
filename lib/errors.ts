import { redactText } from './redact';

/** What every error's constructor takes after its message: the cause and its own fields. */
export interface ErrorOptions {
  cause?: unknown;
}

/**
 * Root of cloudops' error tree. Every error is `new X(message, { cause, ...fields })`, its
 * fields kept as readonly properties. Messages are redacted at construction, so an error can be
 * logged or shown anywhere.
 */
export class CloudOpsError extends Error {
  override name = 'CloudOpsError';
  constructor(message: string, options: ErrorOptions = {}) {
    super(redactText(message), options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** Bad input from a user or system: a file, an event, a secret, a flag. Never retried. */
export class ValidationError extends CloudOpsError {
  override name = 'ValidationError';
  /** Where the bad input came from (file path, secret id, event id, request). */
  readonly source: string | undefined;
  /** Field paths and what was expected, one per problem. */
  readonly issues: readonly string[];
  constructor(
    message: string,
    options: ErrorOptions & { source?: string; issues?: readonly string[] } = {},
  ) {
    super(message, options);
    this.source = options.source;
    this.issues = options.issues ?? [];
  }
}

/** Configuration (env, context) missing or invalid; names the setting. */
export class ConfigError extends CloudOpsError {
  override name = 'ConfigError';
}
