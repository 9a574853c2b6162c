/**
 * pipe-watchdog consumer Lambda (SQS, batch size 1 recommended): lists the services of each
 * message, notifies per service as soon as it is decided, stops at the deadline and sends the
 * services it did not reach back to the queue. A message that fails as a whole is reported as
 * a partial batch failure (SQS redelivers it; services it finished are skipped then).
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { withLogContext } from '../../lib/log';
import { consumeBatch, parseBatchMessage } from '../../lib/pipes/fanout';
import { parseWatchdogConfig } from '../../lib/pipes/watchdog';
import { ConfigError } from '../../lib/errors';
import { WATCHDOG_ENV } from '../../lib/pipes/config';
import { clientsOf } from '../connect';
import { deadlineFrom, lazyHandler, type Deadline } from '../runtime';
import { watchdogWiring, type PipeWatchdogHandlerOptions } from './wiring';

export interface PipeWatchdogConsumerOptions extends PipeWatchdogHandlerOptions {
  /** @default deadlineFrom (functions/runtime.ts): the Lambda's remaining time less a margin */
  deadline?: (context: Context, signal?: AbortSignal) => Pick<Deadline, 'signal'>;
}

export function createConsumerHandler(options: PipeWatchdogConsumerOptions = {}) {
  const w = watchdogWiring(options);
  const queue = w.queue;
  if (!queue) throw new ConfigError(`missing configuration: set ${WATCHDOG_ENV.queueUrl}`);
  const config = parseWatchdogConfig(w.settings.watchdog);
  const notifiers = w.notifiers();
  const deadlineOf =
    options.deadline ??
    ((context: Context, signal?: AbortSignal) => deadlineFrom(context, { signal }));

  return middy<unknown, SQSBatchResponse, Error, Context>()
    .use(w.clients())
    .handler(async function pipeWatchdogConsumer(raw, context, opts): Promise<SQSBatchResponse> {
      const event = raw as SQSEvent;
      const deadline = deadlineOf(context, (opts as { signal?: AbortSignal } | undefined)?.signal);
      const api = clientsOf(context).requireManagement();
      const failures: SQSBatchResponse['batchItemFailures'] = [];
      for (const record of event.Records) {
        await withLogContext({ messageId: record.messageId }, async () => {
          // Untouched messages go back as they are once the deadline has come.
          if (deadline.signal.aborted) {
            failures.push({ itemIdentifier: record.messageId });
            return;
          }
          try {
            const message = parseBatchMessage(record.body, record.messageId);
            await consumeBatch(config, message, {
              api,
              store: w.store,
              notifiers,
              now: w.now,
              logger: w.logger,
              metricsSink: w.metricsSink,
              queue,
              stopSignal: deadline.signal,
            });
          } catch (error) {
            w.logger.error('watchdog message failed; SQS will redeliver it', { error });
            failures.push({ itemIdentifier: record.messageId });
          }
        });
      }
      return { batchItemFailures: failures };
    });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createConsumerHandler());
