/**
 * EventBridge: one event per notice (source `cloudops`), its detail-type and detail as the
 * notice's subject renders them (`Pipe State Changed` per lib/events/schemas.ts for a pipe).
 */
import { EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import * as z from 'zod/mini';
import { EVENT_SOURCE } from '../../events/names';
import { putEvents, type Refusal } from '../../events/put-events';
import { redactText } from '../../redact';
import { explain, type Notice, type RenderNotice } from '../notice';
import { defineNotifier, NotifyError, type BatchResult, type Notifier } from './types';

const env = z.object({
  /** Bus name or ARN. */
  CLOUDOPS_WATCHDOG_EVENT_BUS: z.optional(z.string().check(z.minLength(1))),
});

interface EventBridgeNotifierOptions {
  client: EventBridgeClient;
  /** @default 'default' */
  eventBusName?: string;
  /** @default 'eventbridge' */
  name?: string;
  /** Each notice's link (CLOUDOPS_WATCHDOG_LINK_TEMPLATE). */
  linkTemplate?: string | undefined;
  render: RenderNotice;
}

export function createEventBridgeNotifier(options: EventBridgeNotifierOptions): Notifier {
  const name = options.name ?? 'eventbridge';
  const entryOf = (n: Notice): PutEventsRequestEntry => {
    const rendered = options.render(n);
    const { hint, link } = explain(rendered, options.linkTemplate);
    // The subject's detail, its values raw; what explains it is added, never replacing a field.
    const detail = {
      ...(hint ? { hint } : {}),
      ...(link ? { link: link.url } : {}),
      ...rendered.event.detail,
    };
    return {
      Source: EVENT_SOURCE,
      DetailType: rendered.event.type,
      Time: new Date(n.at),
      EventBusName: options.eventBusName ?? 'default',
      Detail: JSON.stringify(detail),
    };
  };

  // One NotifyError per refusal: a failed call fails each of its entries with the same error.
  const errorOf = (refusals: Map<Refusal, NotifyError>, refusal: Refusal): NotifyError => {
    const known = refusals.get(refusal);
    if (known) return known;
    const error =
      refusal.kind === 'call-failed'
        ? new NotifyError(`put events failed: ${redactText((refusal.error as Error).message)}`, {
            notifier: name,
            cause: refusal.error,
          })
        : refusal.kind === 'rejected'
          ? new NotifyError(`event rejected: ${refusal.code}: ${redactText(refusal.message)}`, {
              notifier: name,
            })
          : new NotifyError('event rejected: no result for the entry', { notifier: name });
    refusals.set(refusal, error);
    return error;
  };

  async function sendBatch(list: readonly Notice[], signal?: AbortSignal): Promise<BatchResult> {
    // Delivery is retried by the next watchdog run, so a refused entry is not sent again here.
    const results = await putEvents(options.client, list.map(entryOf), {
      signal,
      refuseOnCallFailure: true,
    });
    const refusals = new Map<Refusal, NotifyError>();
    return results.map((r) => (r ? errorOf(refusals, r) : undefined));
  }

  return {
    name,
    sendBatch,
    async send(n, signal) {
      const [error] = await sendBatch([n], signal);
      if (error) throw error;
    },
  };
}

export const eventBridgeNotifier = defineNotifier<typeof env, string>({
  name: 'eventbridge',
  env,
  settings: (e) => e.CLOUDOPS_WATCHDOG_EVENT_BUS,
  create: (eventBusName, clients, context) =>
    createEventBridgeNotifier({
      client: clients.eventBridge ?? new EventBridgeClient({}),
      eventBusName,
      name: context.name,
      linkTemplate: context.linkTemplate,
      render: context.render,
    }),
});
