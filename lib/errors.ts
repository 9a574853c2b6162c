import { redactText } from './redact';

/** What every error's constructor takes after its message: the cause and its own fields. */
export interface ErrorOptions {
  cause?: unknown;
}

/**
 * Copies `names` from `options` onto `error` as its own fields, in that order, an absent one as
 * undefined (logs and JSON output list an error's fields as they are kept here). One call per
 * class instead of a field declaration and an assignment per name: the error classes are in
 * every function bundle.
 */
export function keepFields<O extends object>(
  error: Error,
  options: O,
  names: readonly (keyof O & string)[],
): void {
  for (const name of names) (error as unknown as Record<string, unknown>)[name] = options[name];
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
  declare readonly source: string | undefined;
  /** Field paths and what was expected, one per problem. */
  declare readonly issues: readonly string[];
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
