/**
 * Secret redaction for every log line, error message and event.
 *
 * Two nets: field names that always hold secrets are masked wherever they appear, and the
 * exact values of secrets this process has handled (registered when loaded or created) are
 * masked inside any text, so a secret echoed in an error body or URL never escapes.
 */
export const REDACTED = '[REDACTED]';

const SECRET_FIELD =
  /^(authorization|keysecret|token|observabilitytoken|connectionstring|password|secret|signingsecret|secretstring|x-amz-security-token)$/i;
const HEADER_PATTERNS: RegExp[] = [/\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]+/g];
const MIN_SECRET_LENGTH = 6;

const knownSecrets = new Set<string>();

/** Remember a secret value so it is masked in any text from now on. */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= MIN_SECRET_LENGTH) knownSecrets.add(value);
}

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

export function redactText(text: string): string {
  let out = text;
  for (const pattern of HEADER_PATTERNS) out = out.replace(pattern, `$1 ${REDACTED}`);
  for (const secret of knownSecrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Deep copy with secret fields masked and secret values removed from strings. */
export function redact<T>(value: T, seen = new WeakSet<object>()): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]' as T;
  seen.add(value);
  if (Array.isArray(value)) return value.map((item: unknown) => redact(item, seen)) as T;
  if (value instanceof Error) return redactError(value) as T;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    out[key] = isSecretField(key) && field != null && field !== '' ? REDACTED : redact(field, seen);
  }
  return out as T;
}

/** A plain, redacted description of an error (and its causes) for logs. */
export function redactError(error: Error): Record<string, unknown> {
  const described: Record<string, unknown> = {
    name: error.name,
    message: redactText(error.message),
  };
  for (const [key, field] of Object.entries(error)) {
    if (key === 'cause' || key === 'stack') continue;
    described[key] = isSecretField(key) ? REDACTED : redact(field);
  }
  if (error.cause instanceof Error) described.cause = redactError(error.cause);
  return described;
}

/** The secret values registered so far (for the test suite's leak scan; never log this). */
export function registeredSecrets(): readonly string[] {
  return [...knownSecrets];
}
