/**
 * What every Lambda entry point shares: the one lazy-handler idiom (settings read on the first
 * invocation, so importing a handler touches neither env nor network), the log context of an
 * invocation (request id, event / message id on every line), the deadline handed to lib, and
 * the "not configured yet" answer of a freshly deployed stack.
 */
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { NotConfiguredError } from '../lib/config';
import { withLogContext, type LogFields, type Logger } from '../lib/log';

/** A Lambda handler as middy makes it (its optional third argument carries the abort signal). */
export type LambdaHandler<E = unknown, R = unknown> = (event: E, context: Context) => Promise<R>;

/**
 * The Lambda entry point: `create` runs on the first invocation (reading env, making clients)
 * and its handler serves every later one. Each invocation runs inside a log context holding
 * the request id and the event's id, so every line lib writes for it carries them.
 */
export function lazyHandler<R>(
  create: () => (event: unknown, context: Context) => Promise<R>,
): LambdaHandler<unknown, R> {
  let instance: ((event: unknown, context: Context) => Promise<R>) | undefined;
  return function lambdaEntry(event, context) {
    return withLogContext(invocationLogFields(event, context), () =>
      (instance ??= create())(event, context),
    );
  };
}

/**
 * The ids a person searches the logs by: the Lambda request id, and the event's own id when it
 * has one (EventBridge and Scheduler `id`, a single SQS record's `messageId`, a rotation's
 * ClientRequestToken and step, S3's request id). Batch loops add each record's id themselves
 * (withLogContext from lib/log.ts).
 */
export function invocationLogFields(event: unknown, context: Pick<Context, 'awsRequestId'>) {
  const fields: LogFields = {};
  if (context?.awsRequestId) fields.requestId = context.awsRequestId;
  if (!event || typeof event !== 'object') return fields;
  const e = event as Record<string, unknown>;
  if (typeof e.id === 'string') fields.eventId = e.id;
  if (typeof e.ClientRequestToken === 'string') fields.rotationToken = e.ClientRequestToken;
  if (typeof e.Step === 'string') fields.rotationStep = e.Step;
  const records = Array.isArray(e.Records) ? (e.Records as Record<string, unknown>[]) : [];
  if (records.length === 1 && typeof records[0]?.messageId === 'string') {
    fields.messageId = records[0].messageId;
  }
  const s3RequestId = (records[0]?.responseElements as Record<string, unknown> | undefined)?.[
    'x-amz-request-id'
  ];
  if (typeof s3RequestId === 'string') fields.eventId = s3RequestId;
  return fields;
}

/** How long lib may still work, and a signal that fires when it must stop. */
export interface Deadline {
  /** Epoch ms after which no new work should start. */
  readonly at: number;
  /** Aborts at `at`, or earlier when middy's own timeout signal fires. */
  readonly signal: AbortSignal;
  remainingMs(): number;
}

export interface DeadlineOptions {
  /** middy's signal (the handler's third argument): aborted just before the Lambda times out. */
  signal?: AbortSignal;
  /**
   * Kept back for finishing up (settling state, sending what was decided, answering).
   * @default 10% of the remaining time, at least 1 s and at most 10 s
   */
  marginMs?: number;
  /** @default Date.now */
  now?: () => number;
}

/** What deadlineFrom keeps back by default: 10% of the remaining time, 1 s to 10 s. */
export const deadlineMarginMs = (remainingMs: number): number =>
  Math.min(10_000, Math.max(1000, Math.round(remainingMs * 0.1)));

/**
 * The deadline of this invocation, to pass into lib: work not started by `at` is left for the
 * next run. Outside Lambda (tests, no getRemainingTimeInMillis) it never fires on its own.
 */
export function deadlineFrom(
  context: Partial<Pick<Context, 'getRemainingTimeInMillis'>>,
  options: DeadlineOptions = {},
): Deadline {
  const now = options.now ?? Date.now;
  const remaining = context.getRemainingTimeInMillis?.();
  if (remaining === undefined) {
    const signal = options.signal ?? new AbortController().signal;
    return { at: Infinity, signal, remainingMs: () => Infinity };
  }
  const margin = options.marginMs ?? deadlineMarginMs(remaining);
  const budget = Math.max(0, remaining - margin);
  const at = now() + budget;
  const timeout = AbortSignal.timeout(budget);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  return { at, signal, remainingMs: () => Math.max(0, at - now()) };
}

/** The abort signal middy passes a handler (it fires just before the Lambda's own timeout). */
export function middySignal(middyOpts: unknown): AbortSignal | undefined {
  return (middyOpts as { signal?: AbortSignal } | undefined)?.signal;
}

/**
 * Middy middleware: a secret that still holds its deploy-time placeholder ends the invocation
 * with `response` and one info line per container (no error, so no alarm and no error metric)
 * instead of failing. Put it first in the chain so its onError sees every middleware's error.
 */
export function notConfiguredMiddleware<R>(options: {
  logger: Logger;
  /** What the invocation answers (an SQS handler: an empty batchItemFailures list). */
  response: R;
}): MiddlewareObj<unknown, R, Error, Context> {
  const reported = new Set<string>();
  return {
    name: 'notConfiguredMiddleware',
    onError: function notConfiguredOnError(request) {
      const error = request.error;
      if (!(error instanceof NotConfiguredError)) return;
      if (!reported.has(error.secretId)) {
        reported.add(error.secretId);
        options.logger.info('not configured yet: nothing done', { secretId: error.secretId });
      }
      request.response = options.response;
    },
  };
}
