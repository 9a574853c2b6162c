import type * as z from 'zod/mini';
import { isNotConfiguredSecret, NotConfiguredError } from '../config';
import { ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';
import { isSecretField, registerSecret } from '../redact';

/**
 * Parse a secret's JSON text (or an already-parsed value) against its schema. Errors name the
 * secret id and each bad field with what was expected; they never carry a value from the
 * secret (not even JSON.parse's message, which quotes the text).
 */
export function parseSecret<S extends z.ZodMiniType>(
  secretId: string,
  secret: unknown,
  schema: S,
): z.infer<S> {
  let value = secret;
  if (typeof secret === 'string') {
    registerSecret(secret);
    try {
      value = JSON.parse(secret) as unknown;
    } catch {
      throw new ValidationError(`Secret ${secretId} is not valid JSON`, {
        source: secretId,
        issues: ['(root): expected a JSON object'],
      });
    }
  } else if (secret === undefined || secret === null) {
    throw new ValidationError(`Secret ${secretId} has no SecretString`, {
      source: secretId,
      issues: ['(root): expected a JSON object'],
    });
  }
  return parseSecretValue(secretId, value, schema);
}

/** Validate a secret-shaped value (from a secret or from configuration) against its schema. */
export function parseSecretValue<S extends z.ZodMiniType>(
  source: string,
  value: unknown,
  schema: S,
): z.infer<S> {
  // Register first: a malformed secret still holds real secrets that must stay out of logs.
  const secrets = secretFieldValues(value);
  for (const secret of secrets) registerSecret(secret);
  // The deploy-time placeholder: the deployer has not seeded it yet (not a malformed secret).
  if (isNotConfiguredSecret(value))
    throw new NotConfiguredError(
      `not configured yet: secret ${source} still holds its placeholder (see cdk/README.md)`,
      { secretId: source },
    );
  return parseOrThrow(schema, value, source, {
    intro: `Secret ${source} is malformed`,
    scrub: (issues) => scrub(issues, secrets),
  });
}

/** The values of secret-named fields (keySecret, token, ...) anywhere in `value`. */
function secretFieldValues(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) secretFieldValues(item, found);
  } else if (value && typeof value === 'object') {
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === 'string' && isSecretField(key)) found.push(field);
      else secretFieldValues(field, found);
    }
  }
  return found;
}

/**
 * Belt and braces: drop the secret-named fields' values (keySecret, token, ...) should a schema
 * message quote one. Ids and role names stay: an issue naming them is what the operator needs.
 */
function scrub(lines: string[], secrets: readonly string[]): string[] {
  const values = secrets.filter((secret) => secret.length >= 4);
  values.sort((a, b) => b.length - a.length);
  return lines.map((line) =>
    values.reduce((text, secret) => text.split(secret).join('[REDACTED]'), line),
  );
}
