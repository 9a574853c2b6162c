/**
 * provision-alerts Lambda, fed by an SQS queue that EventBridge rules fill with `Dashboard
 * Synced` and `Alert Provision Requested` events. Thin: the wiring and the work are in
 * lib/alerts/entry.ts; here middy, the API clients (credentials from Secrets Manager, or
 * values in env) and the invocation's deadline.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context, SQSBatchResponse } from 'aws-lambda';
import { provisionAlertsEntry, type ProvisionEntryOptions } from '../../lib/alerts/entry';
import type { Clock } from '../../lib/api/clock';
import type { AlertManagementOperations } from '../../lib/api/management/alerts';
import type { AlertClient } from '../../lib/api/observability-alerts';
import type { AlertBackend } from '../../lib/api/observability-backend';
import type { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { clientsMiddleware, clientsOf } from '../connect';
import { deadlineFrom, lazyHandler, middySignal, type Deadline } from '../runtime';

export interface ProvisionAlertsHandlerOptions extends ProvisionEntryOptions {
  secretsManager?: SecretsManagerClient;
  /** The management client's clock and limiters (a bench drives a fake clock). */
  clock?: Clock;
  limiters?: RateLimiterRegistry;
  /** The invocation's deadline (a bench puts it on its fake clock); default deadlineFrom. */
  deadline?: (context: Context, signal?: AbortSignal) => Pick<Deadline, 'signal'>;
}

export function createHandler(options: ProvisionAlertsHandlerOptions = {}) {
  const entry = provisionAlertsEntry(options);
  const deadline = options.deadline ?? ((c, s) => deadlineFrom(c, { signal: s }));
  const handler = middy<unknown, SQSBatchResponse, Error, Context>();
  if (!options.backend) {
    handler.use(
      clientsMiddleware({
        config: entry.home.connection,
        needs: entry.home.needs,
        kit: entry.kit,
        secretsManager: options.secretsManager,
        logger: entry.logger,
        overrides: { clock: options.clock, limiters: options.limiters },
      }),
    );
  }
  return handler.handler(function provisionAlerts(event, context, opts) {
    return entry.run(event, {
      // Alerts belong to one service: the first of the list (as for dashboards).
      backend:
        options.backend ??
        clientsOf<AlertManagementOperations, AlertClient, AlertBackend>(context).backend(
          entry.home.serviceId,
        ),
      signal: deadline(context, middySignal(opts)).signal,
    });
  });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createHandler());
