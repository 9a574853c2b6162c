import { describe, expect, it } from 'vitest';
import * as cliArgs from '../../cli/args';
import * as cliFailure from '../../cli/failure';
import * as alertProvision from '../../lib/alerts/provision';
import * as apiErrors from '../../lib/api/errors';
import * as rateLimiter from '../../lib/api/rate-limiter';
import * as config from '../../lib/config';
import * as dashboardApply from '../../lib/dashboards/apply';
import * as dashboardLoad from '../../lib/dashboards/load';
import * as errors from '../../lib/errors';
import * as prometheus from '../../lib/metrics/prometheus';
import * as keyErrors from '../../lib/keys/errors';
import * as notifyTypes from '../../lib/watch/notifiers/types';
import { REDACTED, registerSecret } from '../../lib/redact';

const request = { method: 'GET', path: '/v1/x', status: 500 };

/** The fields each error class requires (beyond `cause`); a new class must be listed here. */
const fields: Record<string, Record<string, unknown>> = {
  CloudOpsError: {},
  ConfigError: {},
  ValidationError: { source: 'file.yaml', issues: ['a: expected a string'] },
  PrometheusParseError: { line: 3, expected: 'a sample value' },
  NotConfiguredError: { secretId: 'cloudops/x' },
  ApiError: { ...request, code: 'BAD', requestId: 'r-1' },
  UnexpectedResponseError: { ...request, snippet: '<html>', contentType: 'text/html' },
  ResponseValidationError: { ...request, issues: ['id: required'] },
  ServiceIdleError: { ...request, serviceId: 's1', serviceState: 'idle' },
  RateLimitedError: { ...request, resetMs: 5000, remainingMs: 1000 },
  RedirectRefusedError: { ...request, status: 302, locationHost: 'other.example:8443' },
  WebhookInUseError: { ...request, status: 409, webhookId: 'w1' },
  ResponseTooLargeError: { ...request, limitBytes: 10, bytesRead: 11 },
  TransportError: { method: 'GET', path: '/v1/x', kind: 'reset', maybeSent: true },
  PausedPastDeadline: { pausedForMs: 5000, remainingMs: 1000 },
  StalePlanError: { stale: ['dashboard a changed'] },
  DashboardFilesError: { source: 'dir', fileIssues: [{ file: 'a.yaml', path: 'x', message: 'm' }] },
  AlertProvisionError: { result: { event: 'e1', errors: ['x'] } },
  RotationError: { secretId: 'cloudops/key' },
  KeyCommandError: { subject: 'key …abcd' },
  NotifyError: { notifier: 'slack', status: 502 },
  CliFailure: {},
  UsageError: {},
};

type ErrorClass = new (message: string, options: Record<string, unknown>) => Error;

const exported: [string, ErrorClass][] = [
  errors,
  apiErrors,
  rateLimiter,
  config,
  dashboardApply,
  dashboardLoad,
  alertProvision,
  keyErrors,
  prometheus,
  notifyTypes,
  cliFailure,
  cliArgs,
].flatMap((module) =>
  Object.entries(module).filter(
    (entry): entry is [string, ErrorClass] =>
      typeof entry[1] === 'function' &&
      (entry[1] as { prototype: unknown }).prototype instanceof Error,
  ),
);

describe('the error tree', () => {
  it('finds every error class', () => {
    expect(exported.map(([name]) => name).sort()).toEqual(Object.keys(fields).sort());
  });

  const secret = 'errors-test-secret-42x';
  registerSecret(secret);

  it.each(exported)('%s is new X(message, { cause, ...fields })', (name, ErrorClass) => {
    const cause = new Error('underneath');
    const error = new ErrorClass(`failed with ${secret}`, { cause, ...fields[name] });
    expect(error).toBeInstanceOf(errors.CloudOpsError);
    expect(error.name).toBe(name);
    expect(error.message).toContain(REDACTED);
    expect(error.message).not.toContain(secret);
    expect(error.cause).toBe(cause);
    for (const [field, value] of Object.entries(fields[name])) {
      expect((error as unknown as Record<string, unknown>)[field], field).toEqual(value);
    }
  });
});
