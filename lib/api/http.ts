import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import nodeFetch from 'node-fetch';
import type * as z from 'zod/mini';
import { formatIssues } from '../format-issues';
import { silentLogger, type Logger } from '../log';
import { envelopeOf, splitErrorText } from '../schemas/common';
import type { AuthScheme } from './auth';
import { systemClock, type Clock } from './clock';
import {
  ApiError,
  apiError,
  invalidAnswer,
  rateLimited,
  redirectRefused,
  transportError,
  unexpectedResponse,
  isUnauthorized,
  ResponseTooLargeError,
  TransportError,
  type ApiErrorDetails,
  type RequestRef,
  type TransportErrorKind,
} from './errors';
import { itemSchemaOf, readListInPlace } from './item-list';
import { joinUrl, type ApiPath } from './paths';
import type { RateLimiterRegistry } from './rate-limiter';
import {
  PausedPastDeadline,
  sharedRateLimiters,
  type RateLimitConfig,
  type SlidingWindowLimiter,
} from './rate-limiter';
import {
  defaultRetryPolicy,
  nextDelay,
  resetDelayMs,
  type Idempotency,
  type RetryPolicy,
} from './retry';

/** The subset of fetch the core needs; node-fetch by default, injectable for tests. */
export interface FetchResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  /** The body as a stream (node-fetch); read chunk by chunk so the size cap holds. */
  readonly body?: AsyncIterable<Uint8Array | string> | null;
}
export interface FetchInitLike {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  agent?: (url: URL) => http.Agent;
  /** Always `manual`: a 3xx comes back as it is and becomes a RedirectRefusedError. */
  redirect: 'manual';
}
export type FetchLike = (url: string, init: FetchInitLike) => Promise<FetchResponseLike>;

/** `management`: `{status, requestId, result}`; `observability`: `{data}`. */
export type EnvelopeKind = 'management' | 'observability';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_DEADLINE_MS = 60_000;
/**
 * The largest real answer is an unpaginated management list. A 500-tile dashboard (the
 * service's maximum) in the `config` form serialises to about 0.2 MB and a full 1000-alert
 * `/api/v2` page to about 0.6 MB (field lists of API-FACTS, realistic values). 32 MiB holds a
 * list of ~150 maximal dashboards, while a runaway body stops long before it can fill a Lambda.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 16, timeout: 4_000 } as const;

export interface HttpCoreOptions {
  readonly baseUrl: string;
  readonly auth: AuthScheme;
  readonly envelope: EnvelopeKind;
  /** false disables client-side limiting (e.g. to observe the server's 429 handling). */
  readonly rateLimit: RateLimitConfig | false;
  readonly limiters?: RateLimiterRegistry;
  /** Per attempt. @default 10000 */
  readonly timeoutMs?: number;
  /** Overall, across retries. @default 60000 */
  readonly deadlineMs?: number;
  /** Answers larger than this fail with ResponseTooLargeError. @default 32 MiB */
  readonly maxResponseBytes?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly logger?: Logger;
  readonly fetch?: FetchLike;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly userAgent?: string;
}

/** What each API client takes besides its credentials, handed to its HttpCore as given. */
export interface HttpClientOptions extends Pick<
  HttpCoreOptions,
  | 'baseUrl'
  | 'limiters'
  | 'timeoutMs'
  | 'deadlineMs'
  | 'maxResponseBytes'
  | 'retry'
  | 'logger'
  | 'fetch'
  | 'clock'
  | 'random'
> {
  /** @default the API's own limit; false disables client-side limiting. */
  readonly rateLimit?: RateLimitConfig | false;
}

/** The HttpCore of one API: its auth, envelope, default rate limit and log field `api`. */
export function httpCoreFor(
  options: HttpClientOptions,
  api: { auth: AuthScheme; envelope: EnvelopeKind; rateLimit: RateLimitConfig },
): HttpCore {
  // The client's options as given (the core reads only its own), under the API's own settings.
  return new HttpCore({
    ...options,
    ...api,
    rateLimit: options.rateLimit ?? api.rateLimit,
    logger: options.logger?.child({ api: api.envelope }),
  });
}

export interface ApiRequest<T> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: ApiPath;
  readonly body?: unknown;
  /** Payload schema (inside the envelope); null when the answer carries nothing we need. */
  readonly schema: z.ZodMiniType<T> | null;
  /** Default: POST is `unsafe`, every other method `idempotent`. */
  readonly idempotency?: Idempotency;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly deadlineMs?: number;
  /** Return the whole parsed envelope (e.g. `{ data, meta }` of a paginated list), not its payload. */
  readonly keepEnvelope?: boolean;
  /**
   * How a 2xx that is no JSON envelope is read (`textAnswer`: `text/plain` read by `schema`);
   * errors are still the API's JSON envelopes (or HTML pages). @default the API's envelope
   */
  readonly answer?: AnswerReader;
}

/**
 * A 2xx answer's reader other than the envelope, with the Accept header it sends. Kept out of
 * the core (lib/api/text-answer.ts) so only a function calling such an endpoint bundles it.
 */
export interface AnswerReader {
  readonly accept: string;
  read<T>(schema: z.ZodMiniType<T>, ref: RequestRef, response: FetchResponseLike, text: string): T;
}

/** Options every client forwards to the core (per-call overrides). */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly deadlineMs?: number;
}

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);
const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'ECONNABORTED',
]);

/**
 * One HTTP core under both clients: auth, JSON, timeouts, envelope unwrap, validation,
 * typed errors, retries and rate limiting.
 */
export class HttpCore {
  private readonly fetch: FetchLike;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly policy: RetryPolicy;
  private readonly limiter: SlidingWindowLimiter | undefined;
  // Idle keep-alive sockets are dropped after 4 s, before a server's usual 5 s idle close,
  // so a request never goes out on a socket the server is closing (a reset a POST cannot retry).
  private readonly httpAgent = new http.Agent(AGENT_OPTIONS);
  private readonly httpsAgent = new https.Agent(AGENT_OPTIONS);
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: HttpCoreOptions) {
    this.fetch = options.fetch ?? nodeFetch;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    this.policy = {
      ...defaultRetryPolicy,
      ...options.retry,
      deadlineMs: options.deadlineMs ?? options.retry?.deadlineMs ?? DEFAULT_DEADLINE_MS,
    };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.limiter =
      options.rateLimit === false
        ? undefined
        : (options.limiters ?? sharedRateLimiters).get(options.auth.label, options.rateLimit);
  }

  /** Releases keep-alive sockets (tests, CLI exit). */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  async request<T>(req: ApiRequest<T>): Promise<T> {
    const ref: RequestRef = { method: req.method, path: req.path.path };
    const policy = { ...this.policy, deadlineMs: req.deadlineMs ?? this.policy.deadlineMs };
    const idempotency = req.idempotency ?? (req.method === 'POST' ? 'unsafe' : 'idempotent');
    let attempt = 0;
    let refreshed = false;
    let firstStart: number | undefined;
    let lastError: Error | undefined;

    for (;;) {
      const deadlineAt = (firstStart ?? this.clock.now()) + policy.deadlineMs;
      const slot = await this.acquire(ref, req.signal, deadlineAt, lastError);
      const now = this.clock.now();
      firstStart ??= now;
      const remaining = policy.deadlineMs - (now - firstStart);
      // A limiter wait may have eaten the rest of the deadline: fail with the real error.
      if (lastError !== undefined && remaining <= 0) {
        slot?.release();
        throw lastError;
      }
      attempt += 1;
      let result: T;
      let authorization: string | undefined;
      try {
        authorization = await this.options.auth.header(false);
        result = await this.attempt(
          req,
          ref,
          attempt,
          authorization,
          Math.min(remaining, req.timeoutMs ?? this.timeoutMs),
        );
      } catch (error) {
        // The server saw the request no later than now, unless it never reached it.
        if (error instanceof TransportError && !error.maybeSent) slot?.release();
        else slot?.settle();
        if (!(error instanceof Error)) throw error;
        lastError = error;
        if (isUnauthorized(error) && !refreshed) {
          // The credential may have rotated under us: re-read it once and try again, unless
          // it is unchanged (the same credential would only earn the same 401).
          refreshed = true;
          if ((await this.options.auth.header(true)) === authorization) throw error;
          this.logger.info('api credential refresh after 401', {
            ...ref,
            attempt,
            credential: this.options.auth.label,
          });
          continue;
        }
        const elapsed = this.clock.now() - firstStart;
        if (error instanceof ApiError && error.status === 429 && error.retryAfterMs !== undefined) {
          this.limiter?.pauseUntil(this.clock.now() + error.retryAfterMs);
          const remainingMs = policy.deadlineMs - elapsed;
          if (error.retryAfterMs > remainingMs) {
            throw rateLimited({
              ...ref,
              status: 429,
              code: error.code,
              apiMessage: error.apiMessage,
              requestId: error.requestId,
              resetMs: error.retryAfterMs,
              remainingMs,
              cause: error,
            });
          }
        }
        const delay = nextDelay(attempt, error, policy, elapsed, idempotency, this.options.random);
        if (delay === undefined) throw error;
        this.logger.info('api retry', {
          ...ref,
          attempt,
          delayMs: delay,
          reason: error instanceof ApiError ? error.status : (error as TransportError).kind,
        });
        await this.guardAbort(ref, req.signal, () => this.clock.sleep(delay, req.signal));
        continue;
      }
      slot?.settle();
      return result;
    }
  }

  /**
   * A limiter slot. When an earlier 429 paused the bucket past this request's deadline, fails
   * at once with RateLimitedError instead of waiting out a reset it cannot use.
   */
  private async acquire(
    ref: RequestRef,
    signal: AbortSignal | undefined,
    deadlineAt: number,
    lastError: Error | undefined,
  ) {
    try {
      // A pacing wait a person would notice is said before it starts (the CLI shows it).
      const onWait = (waitMs: number) => {
        if (waitMs >= 1000) this.logger.info('api pacing', { ...ref, delayMs: waitMs });
      };
      return await this.guardAbort(ref, signal, () =>
        this.limiter?.acquire(signal, deadlineAt, onWait),
      );
    } catch (error) {
      if (!(error instanceof PausedPastDeadline)) throw error;
      throw rateLimited({
        ...ref,
        status: 429,
        resetMs: error.pausedForMs,
        remainingMs: error.remainingMs,
        cause: lastError,
      });
    }
  }

  /** Runs a wait (limiter, backoff); a caller's abort during it becomes a typed error. */
  private async guardAbort<R>(
    ref: RequestRef,
    signal: AbortSignal | undefined,
    wait: () => Promise<R> | undefined,
  ): Promise<R | undefined> {
    try {
      return await wait();
    } catch (error) {
      if (signal?.aborted) {
        throw transportError({
          ...ref,
          kind: 'aborted',
          maybeSent: false,
          detail: 'aborted by the caller',
          cause: error,
        });
      }
      throw error;
    }
  }

  private async attempt<T>(
    req: ApiRequest<T>,
    ref: RequestRef,
    attempt: number,
    authorization: string,
    timeoutMs: number,
  ): Promise<T> {
    const headers: Record<string, string> = {
      accept: req.answer?.accept ?? 'application/json',
      authorization,
      'user-agent': this.options.userAgent ?? 'cloudops',
    };
    let body: string | undefined;
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('timeout')), Math.max(1, timeoutMs));
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    const started = this.clock.now();
    let status: number | undefined;
    const url = joinUrl(this.options.baseUrl, ref.path);
    try {
      const response = await this.fetch(url, {
        method: req.method,
        headers,
        body,
        signal,
        agent: (target) => (target.protocol === 'http:' ? this.httpAgent : this.httpsAgent),
        redirect: 'manual',
      });
      status = response.status;
      // Boxed so the text can be let go once parsed: no frame keeps it alive after.
      const answer: AnswerText = {
        text: await readCapped(response, ref, this.maxResponseBytes, () =>
          // Drop the connection rather than drain the rest of a runaway body into the pool.
          timeout.abort(new Error('response too large')),
        ),
      };
      if (status >= 300 && status < 400) {
        throw redirectRefused({
          ...ref,
          status,
          requestId: response.headers.get('x-request-id') ?? undefined,
          location: response.headers.get('location'),
          requestUrl: url,
        });
      }
      return this.interpret(req, ref, response, answer);
    } catch (error) {
      if (error instanceof ApiError || error instanceof ResponseTooLargeError) throw error;
      throw classifyTransport(ref, error, req.signal, timeout.signal, timeoutMs);
    } finally {
      clearTimeout(timer);
      this.logger.debug('api call', {
        ...ref,
        status: status ?? null,
        durationMs: Math.round(this.clock.now() - started),
        attempt,
      });
    }
  }

  private interpret<T>(
    req: ApiRequest<T>,
    ref: RequestRef,
    response: FetchResponseLike,
    answer: AnswerText,
  ): T {
    const status = response.status;
    if (status < 200 || status >= 300) throw errorAnswer(ref, response, answer.text);
    if (req.schema === null) return undefined as T;
    return req.answer
      ? req.answer.read(req.schema, ref, response, answer.text)
      : this.readJsonAnswer(req.schema, req.keepEnvelope, ref, response, answer);
  }

  private readJsonAnswer<T>(
    schema: z.ZodMiniType<T>,
    keepEnvelope: boolean | undefined,
    ref: RequestRef,
    response: FetchResponseLike,
    answer: AnswerText,
  ): T {
    const status = response.status;
    const headerRequestId = response.headers.get('x-request-id') ?? undefined;
    if (answer.text.trim() === '') {
      // An empty 2xx is fine only when the payload may be absent.
      const empty = schema.safeParse(undefined);
      if (empty.success) return empty.data;
    }
    const json = parseJson(answer);
    if (!json.ok) {
      throw unexpectedResponse({
        ...ref,
        status,
        requestId: headerRequestId,
        body: answer.text,
        contentType: response.headers.get('content-type') ?? undefined,
        reason: answer.text.trim() === '' ? 'an empty body' : 'a body that is not valid JSON',
      });
    }
    const key = this.options.envelope === 'management' ? 'result' : 'data';
    const parsed = this.readPayload(schema, key, json.value);
    if (!parsed.ok) {
      const requestId = bodyRequestId(json.value) ?? headerRequestId;
      throw invalidAnswer(ref, status, requestId, formatIssues(parsed.issues), 'payload');
    }
    return (keepEnvelope ? parsed.envelope : parsed.envelope[key]) as T;
  }

  /** The envelope with its payload parsed (a list of itemByItem's one item at a time). */
  private readPayload(
    schema: z.ZodMiniType,
    key: 'result' | 'data',
    body: unknown,
  ): { ok: true; envelope: Record<string, unknown> } | { ok: false; issues: z.core.$ZodIssue[] } {
    const item = itemSchemaOf(schema);
    if (item) return readListInPlace(body, key, item);
    const parsed = envelopeOf(key, schema).safeParse(body);
    return parsed.success
      ? { ok: true, envelope: parsed.data }
      : { ok: false, issues: parsed.error.issues };
  }
}

/** A non-2xx answer as a typed error: the API's error envelope, or the unusable body itself. */
function errorAnswer(ref: RequestRef, response: FetchResponseLike, text: string): ApiError {
  const status = response.status;
  const json = parseJson({ text });
  const details: ApiErrorDetails = {
    ...ref,
    status,
    requestId:
      (json.ok ? bodyRequestId(json.value) : undefined) ??
      response.headers.get('x-request-id') ??
      undefined,
    retryAfterMs: status === 429 ? resetDelayMs((name) => response.headers.get(name)) : undefined,
  };
  const errorText = json.ok ? errorTextOf(json.value) : undefined;
  if (errorText === undefined) {
    return unexpectedResponse({
      ...details,
      body: text,
      contentType: response.headers.get('content-type') ?? undefined,
      reason: json.ok ? 'an unrecognised error body' : 'a body that is not JSON',
    });
  }
  const { code, message } = splitErrorText(errorText);
  return apiError({ ...details, code, apiMessage: message });
}

/**
 * The body as text, counting bytes as they arrive: a body over `limit` fails as soon as it
 * passes it (or at once when its Content-Length says so), never buffered whole.
 */
async function readCapped(
  response: FetchResponseLike,
  ref: RequestRef,
  limit: number,
  drop: () => void,
): Promise<string> {
  const tooLarge = (bytesRead: number, declaredBytes?: number) => {
    drop();
    const size =
      declaredBytes !== undefined ? `declares ${declaredBytes} bytes` : `passed ${bytesRead} bytes`;
    return new ResponseTooLargeError(
      `${ref.method} ${ref.path} answered ${response.status} with a body that ${size}, over the ` +
        `${limit}-byte response cap (maxResponseBytes)`,
      { ...ref, status: response.status, limitBytes: limit, bytesRead, declaredBytes },
    );
  };
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(0, declared);
  if (!response.body) {
    const text = await response.text();
    if (Buffer.byteLength(text) > limit) throw tooLarge(Buffer.byteLength(text));
    return text;
  }
  const text = new BodyText(Number.isFinite(declared) ? declared : 0);
  for await (const chunk of response.body) {
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk)
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (text.bytes + buffer.length > limit) throw tooLarge(text.bytes + buffer.length);
    text.add(buffer);
  }
  return text.end();
}

/**
 * A body's text built as its chunks arrive, each let go once taken, so that a large list is
 * never held as chunks, their concatenation and its string at once: a declared length is
 * filled into one buffer decoded at the end (bytes outside the JS heap, then one string);
 * without one (or past it), each chunk is decoded as it comes.
 */
class BodyText {
  private sized: Buffer | undefined;
  private readonly decoder = new StringDecoder('utf8');
  private text = '';
  bytes = 0;

  constructor(declaredBytes: number) {
    this.sized = declaredBytes > 0 ? Buffer.allocUnsafe(declaredBytes) : undefined;
  }

  add(chunk: Buffer): void {
    if (this.sized && this.bytes + chunk.length > this.sized.length) this.unsize();
    if (this.sized) chunk.copy(this.sized, this.bytes);
    else this.text += this.decoder.write(chunk);
    this.bytes += chunk.length;
  }

  end(): string {
    this.unsize();
    return this.text + this.decoder.end();
  }

  /** The bytes filled so far become text; what follows is decoded as it comes. */
  private unsize(): void {
    if (!this.sized) return;
    this.text = this.decoder.write(this.sized.subarray(0, this.bytes));
    this.sized = undefined;
  }
}

/** An answer's text, let go (emptied) once parsed. */
interface AnswerText {
  text: string;
}

function parseJson(answer: AnswerText): { ok: true; value: unknown } | { ok: false } {
  try {
    const value = JSON.parse(answer.text) as unknown;
    answer.text = '';
    return { ok: true, value };
  } catch {
    return { ok: false };
  }
}

function bodyRequestId(value: unknown): string | undefined {
  if (
    value &&
    typeof value === 'object' &&
    'requestId' in value &&
    typeof value.requestId === 'string'
  ) {
    return value.requestId;
  }
  return undefined;
}

/** Management errors carry `error: "CODE: msg"`, observability errors `message`. */
function errorTextOf(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.error === 'string') return record.error;
  if (typeof record.message === 'string') return record.message;
  return undefined;
}

function classifyTransport(
  ref: RequestRef,
  error: unknown,
  callerSignal: AbortSignal | undefined,
  timeoutSignal: AbortSignal,
  timeoutMs: number,
): TransportError {
  const detail = error instanceof Error ? error.message : String(error);
  const make = (kind: TransportErrorKind, maybeSent: boolean, errorCode?: string, text = detail) =>
    transportError({ ...ref, kind, maybeSent, errorCode, detail: text, cause: error });
  if (callerSignal?.aborted) return make('aborted', true, undefined, 'aborted by the caller');
  if (timeoutSignal.aborted)
    return make(
      'timeout',
      true,
      undefined,
      `no complete answer within ${Math.round(timeoutMs)} ms`,
    );
  const code = errorCodeOf(error);
  if (code && NOT_SENT_CODES.has(code)) return make('refused', false, code);
  if ((code && RESET_CODES.has(code)) || /socket hang up|premature close/i.test(detail)) {
    return make('reset', true, code);
  }
  return make('network', true, code);
}

function errorCodeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
