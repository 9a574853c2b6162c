import { CloudOpsError, keepFields, type ErrorOptions } from '../errors';
import { redactText } from '../redact';

/** Which request failed: method and concrete path (paths carry ids, never secrets). */
export interface RequestRef {
  readonly method: string;
  readonly path: string;
}

export interface ApiErrorDetails extends RequestRef {
  status: number;
  /** The `CODE` of a management error text `"CODE: message"`. */
  code?: string;
  /** The server's message without the code prefix. */
  apiMessage?: string;
  requestId?: string;
  /** Set on 429: how long the server asked us to wait. */
  retryAfterMs?: number;
}

/** The server answered with a non-2xx status (or a 2xx we could not use, see subclasses). */
export class ApiError extends CloudOpsError {
  override name = 'ApiError';
  declare readonly status: number;
  declare readonly code: string | undefined;
  declare readonly apiMessage: string | undefined;
  declare readonly requestId: string | undefined;
  declare readonly method: string;
  declare readonly path: string;
  declare readonly retryAfterMs: number | undefined;

  constructor(message: string, options: ErrorOptions & ApiErrorDetails) {
    super(message, options);
    keepFields(this, options, [
      'status',
      'code',
      'apiMessage',
      'requestId',
      'method',
      'path',
      'retryAfterMs',
    ]);
    if (options.apiMessage !== undefined) this.apiMessage = redactText(options.apiMessage);
  }

  /** 429, 5xx: worth another attempt (subject to the retry policy and idempotency). */
  get retryable(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

/** What an ApiError carries, to build a more specific one from it. */
function detailsOf(error: ApiError): ApiErrorDetails {
  return {
    method: error.method,
    path: error.path,
    status: error.status,
    code: error.code,
    apiMessage: error.apiMessage,
    requestId: error.requestId,
  };
}

/** An ApiError whose message says what the server answered. */
export function apiError(details: ErrorOptions & ApiErrorDetails): ApiError {
  return new ApiError(describeApiError(details), details);
}

function describeApiError(d: ApiErrorDetails): string {
  const code = d.code ? ` ${d.code}` : '';
  const text = d.apiMessage ? `: ${d.apiMessage}` : '';
  const id = d.requestId ? ` (requestId ${d.requestId})` : '';
  return `${d.method} ${d.path} failed with ${d.status}${code}${text}${id}`;
}

const requestIdNote = (d: { requestId?: string }) =>
  d.requestId ? ` (requestId ${d.requestId})` : '';

/**
 * The body was not the JSON we can read: an HTML gateway page, a plain-text 401, a
 * truncated document. Keeps a short, redacted snippet of the body for diagnosis.
 */
export class UnexpectedResponseError extends ApiError {
  override name = 'UnexpectedResponseError';
  declare readonly snippet: string;
  declare readonly contentType: string | undefined;

  // Retried as any ApiError: only server-side statuses; a broken 2xx/4xx body would repeat.
  constructor(
    message: string,
    options: ErrorOptions & ApiErrorDetails & { snippet: string; contentType?: string },
  ) {
    super(message, options);
    this.snippet = redactText(options.snippet);
    this.contentType = options.contentType;
  }
}

/** An UnexpectedResponseError naming the status, why the body is unusable, and its start. */
export function unexpectedResponse(
  details: ErrorOptions & ApiErrorDetails & { body: string; contentType?: string; reason: string },
): UnexpectedResponseError {
  const { body, reason, ...fields } = details;
  const snippet = redactText(body.slice(0, 200).replace(/\s+/g, ' ').trim());
  return new UnexpectedResponseError(
    `${details.method} ${details.path} answered ${details.status} with ${reason}` +
      `${details.contentType ? ` (${details.contentType})` : ''}${requestIdNote(details)}: "${snippet}"`,
    { ...fields, snippet },
  );
}

/** A 2xx payload that does not match the schema; names each field path. */
export class ResponseValidationError extends ApiError {
  override name = 'ResponseValidationError';
  declare readonly issues: readonly string[];

  constructor(
    message: string,
    options: ErrorOptions & ApiErrorDetails & { issues: readonly string[] },
  ) {
    super(message, options);
    this.issues = options.issues;
  }

  override get retryable(): boolean {
    return false;
  }
}

/** A 2xx whose payload (JSON) or text does not read: names each problem, never retried. */
export function invalidAnswer(
  ref: RequestRef,
  status: number,
  requestId: string | undefined,
  issues: string[],
  what: 'payload' | 'text',
): ResponseValidationError {
  return new ResponseValidationError(
    `${ref.method} ${ref.path} returned an unexpected ${what}: ${issues.join('; ')}`,
    { ...ref, status, requestId, issues },
  );
}

/**
 * A pipe call answered 424 because the service is idle (scaled to zero): its pipes cannot be
 * read or changed until it wakes. Not a failure of the pipe; callers report it, never retry it.
 */
export class ServiceIdleError extends ApiError {
  override name = 'ServiceIdleError';
  declare readonly serviceId: string;
  /** The state the server named (`idle`), when it named one. */
  declare readonly serviceState: string;

  constructor(
    message: string,
    options: ErrorOptions & ApiErrorDetails & { serviceId: string; serviceState: string },
  ) {
    super(message, options);
    this.serviceId = options.serviceId;
    this.serviceState = options.serviceState;
  }

  override get retryable(): boolean {
    return false;
  }
}

/**
 * `424 FAILED_DEPENDENCY: ... Current state: idle` on a pipe call becomes a ServiceIdleError.
 * A 424 naming another state (e.g. stopped) stays a plain ApiError.
 */
export function asServiceIdle(error: unknown, serviceId: string): unknown {
  if (!(error instanceof ApiError) || error.status !== 424 || error instanceof ServiceIdleError) {
    return error;
  }
  const text = `${error.code ?? ''} ${error.apiMessage ?? ''}`;
  const state = /current state:\s*([a-z_-]+)/i.exec(text)?.[1]?.toLowerCase();
  if (state !== undefined ? state !== 'idle' : !/\bidle\b/i.test(text)) return error;
  return new ServiceIdleError(
    `service ${serviceId} is idle: ${error.method} ${error.path} answered ${error.status}; ` +
      'its pipes cannot be checked until it is active',
    { ...detailsOf(error), serviceId, serviceState: 'idle' },
  );
}

/**
 * Deleting a webhook answered 409: an alert still uses it. The service refuses rather than leave
 * the alert without a channel; a planner names the webhook and repoints or deletes its alerts first.
 */
export class WebhookInUseError extends ApiError {
  override name = 'WebhookInUseError';
  declare readonly webhookId: string;

  constructor(message: string, options: ErrorOptions & ApiErrorDetails & { webhookId: string }) {
    super(message, options);
    this.webhookId = options.webhookId;
  }

  override get retryable(): boolean {
    return false;
  }
}

/** A 409 on a webhook delete becomes a WebhookInUseError; anything else is left as it is. */
export function asWebhookInUse(error: unknown, webhookId: string): unknown {
  if (!(error instanceof ApiError) || error.status !== 409 || error instanceof WebhookInUseError)
    return error;
  return new WebhookInUseError(
    `webhook ${webhookId} is still used by an alert: ${error.method} ${error.path} answered 409` +
      `${error.apiMessage ? ` (${error.apiMessage})` : ''}; repoint or delete its alerts first`,
    { ...detailsOf(error), webhookId, cause: error },
  );
}

/**
 * The server answered with a redirect. None is ever followed: the credential would go with the
 * request to wherever Location points (another port of the same host gets the Basic header),
 * and an answer from another host is not API data. Names the status and Location's host only
 * (its path or query may carry anything).
 */
export class RedirectRefusedError extends ApiError {
  override name = 'RedirectRefusedError';
  /** `host[:port]` of the Location header; undefined when there was none (or it is unreadable). */
  declare readonly locationHost: string | undefined;

  constructor(
    message: string,
    options: ErrorOptions & ApiErrorDetails & { locationHost?: string },
  ) {
    super(message, options);
    this.locationHost = options.locationHost;
  }

  override get retryable(): boolean {
    return false;
  }
}

/** A RedirectRefusedError for a 3xx answer whose Location resolves against `requestUrl`. */
export function redirectRefused(
  details: ErrorOptions & ApiErrorDetails & { location: string | null; requestUrl: string },
): RedirectRefusedError {
  const { location, requestUrl, ...fields } = details;
  let locationHost: string | undefined;
  try {
    locationHost = location === null ? undefined : new URL(location, requestUrl).host;
  } catch {
    locationHost = undefined;
  }
  const where = locationHost === undefined ? 'without a usable Location' : `to ${locationHost}`;
  return new RedirectRefusedError(
    `${details.method} ${details.path} answered ${details.status}, a redirect ${where}; ` +
      `redirects are not followed (check the API URL setting)${requestIdNote(details)}`,
    { ...fields, locationHost },
  );
}

/**
 * The server's rate-limit reset (or the limiter's pause it caused) ends after the request's
 * deadline: failing now beats waiting out a reset whose answer would come too late.
 */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  /** How long the reset still was when we gave up. */
  declare readonly resetMs: number;
  /** What was left of the request's deadline. */
  declare readonly remainingMs: number;

  constructor(
    message: string,
    options: ErrorOptions & ApiErrorDetails & { resetMs: number; remainingMs: number },
  ) {
    super(message, { ...options, retryAfterMs: options.retryAfterMs ?? options.resetMs });
    this.resetMs = options.resetMs;
    this.remainingMs = options.remainingMs;
  }

  override get retryable(): boolean {
    return false;
  }
}

/** A RateLimitedError saying how long the reset is and how much of the deadline was left. */
export function rateLimited(
  details: ErrorOptions & ApiErrorDetails & { resetMs: number; remainingMs: number },
): RateLimitedError {
  return new RateLimitedError(
    `${details.method} ${details.path} is rate limited for ${Math.ceil(details.resetMs / 1000)} s, ` +
      `longer than the ${Math.max(0, Math.round(details.remainingMs / 1000))} s left of its deadline` +
      requestIdNote(details),
    details,
  );
}

/**
 * The answer is larger than the client's cap (`maxResponseBytes`). Reading stopped at the cap
 * and the connection was dropped, so a runaway body never fills memory; never retried (the
 * same request would earn the same body).
 */
export class ResponseTooLargeError extends CloudOpsError {
  override name = 'ResponseTooLargeError';
  declare readonly method: string;
  declare readonly path: string;
  declare readonly status: number;
  declare readonly limitBytes: number;
  /** Bytes received before giving up (the declared Content-Length when it alone exceeded). */
  declare readonly bytesRead: number;
  declare readonly declaredBytes: number | undefined;

  constructor(
    message: string,
    options: ErrorOptions &
      RequestRef & {
        status: number;
        limitBytes: number;
        bytesRead: number;
        declaredBytes?: number;
      },
  ) {
    super(message, options);
    keepFields(this, options, [
      'method',
      'path',
      'status',
      'limitBytes',
      'bytesRead',
      'declaredBytes',
    ]);
  }

  get retryable(): boolean {
    return false;
  }
}

export type TransportErrorKind = 'timeout' | 'reset' | 'refused' | 'aborted' | 'network';

/** No HTTP answer: timeout, connection reset/refused, DNS failure, or the caller aborted. */
export class TransportError extends CloudOpsError {
  override name = 'TransportError';
  declare readonly method: string;
  declare readonly path: string;
  declare readonly kind: TransportErrorKind;
  /** False only when the request surely never reached the server (refused, DNS). */
  declare readonly maybeSent: boolean;
  declare readonly errorCode: string | undefined;

  constructor(
    message: string,
    options: ErrorOptions &
      RequestRef & { kind: TransportErrorKind; maybeSent: boolean; errorCode?: string },
  ) {
    super(message, options);
    keepFields(this, options, ['method', 'path', 'kind', 'maybeSent', 'errorCode']);
  }

  /** A caller's abort is final; everything else may be retried (policy permitting). */
  get retryable(): boolean {
    return this.kind !== 'aborted';
  }
}

/** A TransportError whose message is `METHOD path kind: detail`. */
export function transportError(
  details: ErrorOptions &
    RequestRef & {
      kind: TransportErrorKind;
      maybeSent: boolean;
      errorCode?: string;
      detail: string;
    },
): TransportError {
  const { detail, ...fields } = details;
  return new TransportError(`${details.method} ${details.path} ${details.kind}: ${detail}`, fields);
}

const statusIs =
  (status: number) =>
  (error: unknown): error is ApiError =>
    error instanceof ApiError && error.status === status;

export const isServiceIdle = (error: unknown): error is ServiceIdleError =>
  error instanceof ServiceIdleError;
export const isUnauthorized = /* @__PURE__ */ statusIs(401);
export const isForbidden = /* @__PURE__ */ statusIs(403);
export const isConflict = /* @__PURE__ */ statusIs(409);
/**
 * A JSON 404 for a missing resource. An HTML "Cannot GET" 404 means a wrong path, not a
 * missing object, so it does not count (callers treat not-found as "already gone").
 */
export const isNotFound = (error: unknown): error is ApiError =>
  statusIs(404)(error) && !(error instanceof UnexpectedResponseError);
