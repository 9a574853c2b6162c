/**
 * An error's fields are own, enumerable properties in a fixed order: logs (redactError) and the
 * CLI's JSON output show them as they are listed here, each present even when undefined.
 */
import { describe, expect, it } from 'vitest';
import {
  apiError,
  asServiceIdle,
  asWebhookInUse,
  invalidAnswer,
  rateLimited,
  redirectRefused,
  ResponseTooLargeError,
  transportError,
  unexpectedResponse,
  UnexpectedResponseError,
} from '../../../lib/api/errors';
import { PausedPastDeadline } from '../../../lib/api/rate-limiter';
import { NotConfiguredError } from '../../../lib/config';
import { ValidationError } from '../../../lib/errors';
import { redact, registerSecret } from '../../../lib/redact';

const ref = { method: 'GET', path: '/v1/organizations/o/keys' };
const API_FIELDS = ['name', 'status', 'code', 'apiMessage', 'requestId', 'method', 'path'];
const entries = (error: Error) => Object.entries(error);

describe('error fields', () => {
  it('an ApiError keeps every detail, absent ones as undefined', () => {
    const error = apiError({ ...ref, status: 500 });
    expect(Object.keys(error)).toEqual([...API_FIELDS, 'retryAfterMs']);
    expect(entries(error)).toEqual([
      ['name', 'ApiError'],
      ['status', 500],
      ['code', undefined],
      ['apiMessage', undefined],
      ['requestId', undefined],
      ['method', 'GET'],
      ['path', '/v1/organizations/o/keys'],
      ['retryAfterMs', undefined],
    ]);
    expect(error.retryable).toBe(true);
  });

  it('the server message and a body snippet are redacted as they are kept', () => {
    registerSecret('s3cr3t-value-for-fields');
    const error = apiError({
      ...ref,
      status: 400,
      code: 'BAD',
      apiMessage: 'key s3cr3t-value-for-fields',
    });
    expect(error.apiMessage).toBe('key [REDACTED]');
    const odd = new UnexpectedResponseError('m', {
      ...ref,
      status: 502,
      snippet: 'a s3cr3t-value-for-fields',
    });
    expect(odd.snippet).toBe('a [REDACTED]');
  });

  it('each subclass adds its own fields after the ApiError ones', () => {
    const unexpected = unexpectedResponse({
      ...ref,
      status: 502,
      body: '<html>gateway</html>',
      contentType: 'text/html',
      reason: 'a body that is not JSON',
    });
    expect(Object.keys(unexpected)).toEqual([
      ...API_FIELDS,
      'retryAfterMs',
      'snippet',
      'contentType',
    ]);
    expect(unexpected.retryable).toBe(true);
    expect(unexpectedResponse({ ...ref, status: 404, body: '', reason: 'r' }).retryable).toBe(
      false,
    );

    const invalid = invalidAnswer(ref, 200, 'req-1', ['id: expected string'], 'payload');
    expect(Object.keys(invalid)).toEqual([...API_FIELDS, 'retryAfterMs', 'issues']);
    expect(invalid.issues).toEqual(['id: expected string']);
    expect(invalid.retryable).toBe(false);

    const idle = asServiceIdle(
      apiError({
        ...ref,
        status: 424,
        code: 'FAILED_DEPENDENCY',
        apiMessage: 'Current state: idle',
      }),
      'svc',
    ) as Error & { retryable: boolean };
    expect(Object.keys(idle)).toEqual([...API_FIELDS, 'retryAfterMs', 'serviceId', 'serviceState']);
    expect(idle.retryable).toBe(false);

    const inUse = asWebhookInUse(apiError({ ...ref, status: 409 }), 'wh') as Error & {
      retryable: boolean;
      webhookId: string;
    };
    expect(Object.keys(inUse)).toEqual([...API_FIELDS, 'retryAfterMs', 'webhookId']);
    expect(inUse.webhookId).toBe('wh');
    expect(inUse.retryable).toBe(false);

    const redirect = redirectRefused({
      ...ref,
      status: 302,
      location: 'https://elsewhere.example/x?token=1',
      requestUrl: 'https://api.example/v1/x',
    });
    expect(entries(redirect).slice(-2)).toEqual([
      ['retryAfterMs', undefined],
      ['locationHost', 'elsewhere.example'],
    ]);
    expect(redirect.retryable).toBe(false);

    const limited = rateLimited({ ...ref, status: 429, resetMs: 30_000, remainingMs: 5_000 });
    expect(entries(limited).slice(-3)).toEqual([
      ['retryAfterMs', 30_000],
      ['resetMs', 30_000],
      ['remainingMs', 5_000],
    ]);
    expect(limited.retryable).toBe(false);
  });

  it('transport and size errors keep their own fields', () => {
    const transport = transportError({
      ...ref,
      kind: 'reset',
      maybeSent: true,
      detail: 'socket hang up',
    });
    expect(entries(transport)).toEqual([
      ['name', 'TransportError'],
      ['method', 'GET'],
      ['path', '/v1/organizations/o/keys'],
      ['kind', 'reset'],
      ['maybeSent', true],
      ['errorCode', undefined],
    ]);
    expect(transport.retryable).toBe(true);
    expect(
      transportError({ ...ref, kind: 'aborted', maybeSent: false, detail: 'x' }).retryable,
    ).toBe(false);

    const tooLarge = new ResponseTooLargeError('m', {
      ...ref,
      status: 200,
      limitBytes: 10,
      bytesRead: 11,
    });
    expect(entries(tooLarge)).toEqual([
      ['name', 'ResponseTooLargeError'],
      ['method', 'GET'],
      ['path', '/v1/organizations/o/keys'],
      ['status', 200],
      ['limitBytes', 10],
      ['bytesRead', 11],
      ['declaredBytes', undefined],
    ]);
    expect(tooLarge.retryable).toBe(false);
  });

  it('the other errors of the floor keep theirs', () => {
    expect(entries(new PausedPastDeadline('m', { pausedForMs: 5, remainingMs: 1 }))).toEqual([
      ['name', 'PausedPastDeadline'],
      ['pausedForMs', 5],
      ['remainingMs', 1],
    ]);
    expect(entries(new NotConfiguredError('m', { secretId: 'sec' }))).toEqual([
      ['name', 'NotConfiguredError'],
      ['secretId', 'sec'],
    ]);
    expect(entries(new ValidationError('m'))).toEqual([
      ['name', 'ValidationError'],
      ['source', undefined],
      ['issues', []],
    ]);
    expect(redact(new ValidationError('m', { source: 'f.yaml', issues: ['a: b'] }))).toEqual({
      name: 'ValidationError',
      message: 'm',
      source: 'f.yaml',
      issues: ['a: b'],
    });
  });
});
