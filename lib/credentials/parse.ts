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
  registerSecretFields(value);
  // The deploy-time placeholder: the deployer has not seeded it yet (not a malformed secret).
  if (isNotConfiguredSecret(value))
    throw new NotConfiguredError(
      `not configured yet: secret ${source} still holds its placeholder (see cdk/README.md)`,
      { secretId: source },
    );
  return parseOrThrow(schema, value, source, {
    intro: `Secret ${source} is malformed`,
    scrub: (issues) => scrub(issues, value),
  });
}

/** Register the values of secret-named fields (keySecret, token, ...) for redaction. */
function registerSecretFields(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(registerSecretFields);
  } else if (value && typeof value === 'object') {
    for (const [key, field] of Object.entries(value)) {
      if (typeof field === 'string' && isSecretField(key)) registerSecret(field);
      else registerSecretFields(field);
    }
  }
}

/**
 * Belt and braces: drop the secret-named fields' values (keySecret, token, ...) should a schema
 * message quote one. Ids and role names stay: an issue naming them is what the operator needs.
 */
function scrub(lines: string[], value: unknown): string[] {
  const values: string[] = [];
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (node && typeof node === 'object') {
      for (const [key, field] of Object.entries(node)) {
        if (typeof field === 'string' && isSecretField(key) && field.length >= 4)
          values.push(field);
        else collect(field);
      }
    }
  };
  collect(value);
  values.sort((a, b) => b.length - a.length);
  return lines.map((line) =>
    values.reduce((text, secret) => text.split(secret).join('[REDACTED]'), line),
  );
}
