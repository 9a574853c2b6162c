/**
 * pipe-watchdog consumer Lambda (SQS, batch size 1 recommended): lists the services of each
 * message, notifies per service as soon as it is decided, stops at the deadline and sends the
 * services it did not reach back to the queue. A message that fails as a whole is reported as
 * a partial batch failure (SQS redelivers it; services it finished are skipped then).
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { watchdogEntry, type WatchdogEntryOptions } from '../../lib/pipes/entry';
import type { PipeApi } from '../../lib/pipes/watchdog';
import { clientsMiddleware, clientsOf } from '../connect';
import { deadlineFrom, lazyHandler, middySignal, type Deadline } from '../runtime';

interface PipeWatchdogConsumerOptions extends WatchdogEntryOptions {
  /** @default deadlineFrom (functions/runtime.ts): the Lambda's remaining time less a margin */
  deadline?: (context: Context, signal?: AbortSignal) => Pick<Deadline, 'signal'>;
}

export function createConsumerHandler(options: PipeWatchdogConsumerOptions = {}) {
  const entry = watchdogEntry(options);
  const consume = entry.consumer();
  const deadlineOf =
    options.deadline ??
    ((context: Context, signal?: AbortSignal) => deadlineFrom(context, { signal }));

  return middy<unknown, SQSBatchResponse, Error, Context>()
    .use(clientsMiddleware(entry.connection))
    .handler(function pipeWatchdogConsumer(event, context, opts) {
      const deadline = deadlineOf(context, middySignal(opts));
      const api = clientsOf<PipeApi>(context).requireManagement();
      return consume((event as SQSEvent).Records, api, deadline.signal);
    });
}

/** The Lambda entry point; settings are read on the first invocation (importing is free). */
export const handler = lazyHandler(() => createConsumerHandler());
