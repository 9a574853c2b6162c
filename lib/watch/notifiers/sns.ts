/**
 * SNS: the notice's title as subject, the notice as JSON body, and its subject's attributes
 * (`severity`, `kind`, `subject`, ...) as message attributes for subscription filters.
 */
import {
  PublishBatchCommand,
  PublishCommand,
  SNSClient,
  type PublishBatchCommandOutput,
} from '@aws-sdk/client-sns';
import * as z from 'zod/mini';
import { chunks } from '../../batches';
import { redactText } from '../../redact';
import { explain, type Notice, type RenderNotice } from '../notice';
import { defineNotifier, NotifyError, type BatchResult, type Notifier } from './types';

/** SNS subjects must be printable ASCII without line breaks, at most 100 characters. */
function cleanSubject(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
}

const env = z.object({
  CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: z.optional(
    // a regex, not z.startsWith: same message, and no check class of its own in the bundles
    z.string().check(z.regex(/^arn:/, 'expected an SNS topic ARN')),
  ),
});

interface SnsNotifierOptions {
  client: SNSClient;
  topicArn: string;
  /** @default 'sns' */
  name?: string;
  /** Each notice's link (CLOUDOPS_WATCHDOG_LINK_TEMPLATE). */
  linkTemplate?: string | undefined;
  render: RenderNotice;
}

interface SnsMessage {
  subject: string;
  /** Sent as JSON. */
  body: unknown;
  /** String attributes; `severity` is the one every subscription can filter on. */
  attributes: Record<string, string>;
}

interface SnsPublisher {
  readonly name: string;
  publish(message: SnsMessage, signal?: AbortSignal): Promise<void>;
  /** PublishBatch, ≤ 10 entries and ≤ 256 KiB per call; one result per message, in order. */
  publishBatch(messages: readonly SnsMessage[], signal?: AbortSignal): Promise<BatchResult>;
}

/** PublishBatch limits (SNS API reference): 10 entries, 256 KiB summed over the entries. */
const BATCH_ENTRIES = 10;
const BATCH_BYTES = 262_144;

interface Entry {
  Subject: string;
  Message: string;
  MessageAttributes: Record<string, { DataType: 'String'; StringValue: string }>;
}

function entryOf(message: SnsMessage): Entry {
  return {
    Subject: cleanSubject(message.subject),
    Message: JSON.stringify(message.body),
    // SNS rejects an empty attribute value (a self-watch notice has no pipeId).
    MessageAttributes: Object.fromEntries(
      Object.entries(message.attributes)
        .filter(([, value]) => value !== '')
        .map(([key, value]) => [key, { DataType: 'String' as const, StringValue: value }]),
    ),
  };
}

/** Bytes SNS counts against the batch limit: body plus attribute names, types and values. */
function entryBytes(entry: Entry): number {
  let bytes = Buffer.byteLength(entry.Message) + Buffer.byteLength(entry.Subject);
  for (const [key, value] of Object.entries(entry.MessageAttributes))
    bytes += Buffer.byteLength(key) + value.DataType.length + Buffer.byteLength(value.StringValue);
  return bytes;
}

/**
 * For a standard topic (the stack's): a FIFO topic would also need MessageGroupId per entry.
 */
function snsPublisher(options: SnsNotifierOptions): SnsPublisher {
  const name = options.name ?? 'sns';
  const failed = (error: unknown) =>
    new NotifyError(`publish failed: ${redactText((error as Error).message)}`, {
      notifier: name,
      cause: error,
    });

  async function publishOne(entry: Entry, signal?: AbortSignal): Promise<NotifyError | undefined> {
    try {
      await options.client.send(new PublishCommand({ TopicArn: options.topicArn, ...entry }), {
        abortSignal: signal,
      });
      return undefined;
    } catch (error) {
      return failed(error);
    }
  }

  async function publishChunk(entries: Entry[], signal?: AbortSignal): Promise<BatchResult> {
    // Ids only need to be unique within one request ([A-Za-z0-9_-]{1,80}): the position.
    const ids = entries.map((_, i) => `m${i}`);
    let out: PublishBatchCommandOutput;
    try {
      out = await options.client.send(
        new PublishBatchCommand({
          TopicArn: options.topicArn,
          PublishBatchRequestEntries: entries.map((entry, i) => ({ Id: ids[i], ...entry })),
        }),
        { abortSignal: signal },
      );
    } catch (error) {
      // A request refused as invalid may be one bad entry: try each alone, so it cannot hold
      // back the others run after run. Anything else (throttling, network) fails them all.
      if (entries.length > 1 && isInvalidEntry(error))
        return Promise.all(entries.map((entry) => publishOne(entry, signal)));
      const e = failed(error);
      return entries.map(() => e);
    }
    // A 200 answer still reports entries one by one: Successful and Failed, by Id.
    const ok = new Set((out.Successful ?? []).map((s) => s.Id));
    const rejected = new Map((out.Failed ?? []).map((f) => [f.Id, f]));
    return ids.map((id) => {
      const f = rejected.get(id);
      if (f)
        return new NotifyError(
          `entry rejected: ${f.Code ?? 'error'}: ${redactText(f.Message ?? '')}`,
          { notifier: name },
        );
      return ok.has(id)
        ? undefined
        : new NotifyError('no result for the entry', { notifier: name });
    });
  }

  return {
    name,
    async publish(message, signal) {
      const error = await publishOne(entryOf(message), signal);
      if (error) throw error;
    },
    async publishBatch(messages, signal) {
      const results: BatchResult = [];
      for (const chunk of chunks(messages.map(entryOf), BATCH_ENTRIES, BATCH_BYTES, entryBytes))
        results.push(...(await publishChunk(chunk, signal)));
      return results;
    },
  };
}

/** An entry's content can cause these (not throttling, auth or a missing topic). */
function isInvalidEntry(error: unknown): boolean {
  return /^(InvalidParameter|BatchRequestTooLong)/.test((error as Error).name ?? '');
}

/** The notice as JSON with its hint and link (an email subscriber reads the body as it is). */
function messageOf(n: Notice, options: SnsNotifierOptions): SnsMessage {
  const rendered = options.render(n);
  const { hint, link } = explain(rendered, options.linkTemplate);
  return {
    subject: rendered.title,
    body: { ...n, ...(hint ? { hint } : {}), ...(link ? { link: link.url } : {}) },
    attributes: rendered.attributes,
  };
}

export function createSnsNotifier(options: SnsNotifierOptions): Notifier {
  const sns = snsPublisher(options);
  const message = (n: Notice) => messageOf(n, options);
  return {
    name: sns.name,
    send: (n, signal) => sns.publish(message(n), signal),
    sendBatch: (list, signal) => sns.publishBatch(list.map(message), signal),
  };
}

export const snsNotifier = defineNotifier<typeof env, string>({
  name: 'sns',
  env,
  settings: (e) => e.CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN,
  create: (topicArn, clients, context) =>
    createSnsNotifier({
      client: clients.sns ?? new SNSClient({}),
      topicArn,
      name: context.name,
      linkTemplate: context.linkTemplate,
      render: context.render,
    }),
});
