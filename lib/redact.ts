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
/** knownSecrets, longest first (a whole URL is masked before the token inside it). */
let longestFirst: string[] = [];

/** Ids, not credentials: UUIDs and the observability API's 24-hex ObjectIds. */
const PLAIN_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{24})$/i;

/** A path segment or query value that looks like a credential rather than a name or an id. */
function tokenLike(part: string): boolean {
  if (part.length < 12 || PLAIN_ID.test(part)) return false;
  return part.length >= 20 || (/[0-9]/.test(part) && /[A-Za-z]/.test(part));
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Every form a secret URL can take in text: as configured, as `URL` normalises it (lower-case
 * host, percent-encoding, trailing slash), percent-encoded whole, and its token-like parts.
 */
/**
 * `http://host:port` with no path, query or user: no credential in it, and masking it would
 * hide every URL of that host (a receiver's address is often configured this way).
 */
function bareOrigin(value: string): boolean {
  if (!/^https?:\/\//i.test(value.trim())) return false;
  try {
    const url = new URL(value.trim());
    return !url.username && !url.password && !url.search && !url.hash && url.pathname === '/';
  } catch {
    return false;
  }
}

function urlForms(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return [];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [];
  const forms = new Set<string>([url.href]);
  // Without its trailing slash only when a path remains: a bare origin is no secret, and
  // masking it would hide every URL of that host.
  if (url.pathname.length > 1) forms.add(url.href.replace(/\/$/, ''));
  for (const form of [value, url.href]) {
    forms.add(encodeURIComponent(form));
    forms.add(encodeURI(form));
  }
  if (url.pathname.length > 1) forms.add(`${url.host}${url.pathname}`);
  const parts = [
    ...url.pathname.split('/'),
    url.password,
    url.username,
    ...[...url.searchParams.values()],
  ];
  for (const part of parts) {
    const plain = decoded(part);
    if (!tokenLike(plain)) continue;
    forms.add(plain);
    forms.add(part);
    forms.add(encodeURIComponent(plain));
  }
  return [...forms];
}

/** Remember a secret value (every form of it, for a URL) so it is masked in any text from now on. */
export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < MIN_SECRET_LENGTH || bareOrigin(value)) return;
  const before = knownSecrets.size;
  knownSecrets.add(value);
  for (const form of urlForms(value)) if (form.length >= MIN_SECRET_LENGTH) knownSecrets.add(form);
  if (knownSecrets.size !== before)
    longestFirst = [...knownSecrets].sort((a, b) => b.length - a.length);
}

/** A URL anywhere in text (up to whitespace, quotes or brackets). */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>()[\]{}]+/gi;
const SECRET_QUERY = /^(token|key|secret|sig|signature|code|auth|access_token|api_key|apikey)$/i;

/**
 * Path tokens of any URL printed, registered or not: a Slack incoming-webhook path is the
 * credential itself; elsewhere, token-like path segments and secret-named query values go.
 */
function redactUrl(url: string): string {
  const cut = url.search(/[?#]/);
  const [base, rest] = cut < 0 ? [url, ''] : [url.slice(0, cut), url.slice(cut)];
  const slack = /^(https?:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/)/i.exec(base);
  const path = slack
    ? `${slack[1]}${REDACTED}`
    : base.replace(/\/([^/]+)/g, (whole, seg: string) =>
        tokenLike(decoded(seg)) ? `/${REDACTED}` : whole,
      );
  const query = rest.replace(/([?&])([^=&#]+)=([^&#]*)/g, (whole, sep: string, name: string) =>
    SECRET_QUERY.test(decoded(name)) ? `${sep}${name}=${REDACTED}` : whole,
  );
  return path + query;
}

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

export function redactText(text: string): string {
  let out = text;
  for (const pattern of HEADER_PATTERNS) out = out.replace(pattern, `$1 ${REDACTED}`);
  for (const secret of longestFirst) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out.replace(URL_IN_TEXT, redactUrl);
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
