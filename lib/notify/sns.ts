/**
 * SNS: subject + JSON body, with message attributes for subscription filters. The one SNS
 * publishing path: pipe notifications and key-expiry warnings both go through snsPublisher.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { redactText } from '../redact';
import { NotifyError, subjectOf, type Notifier } from './types';

/** SNS subjects must be printable ASCII without line breaks, at most 100 characters. */
export function cleanSubject(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
}

export function snsSubject(n: Parameters<typeof subjectOf>[0]): string {
  return cleanSubject(subjectOf(n));
}

export interface SnsNotifierOptions {
  client: SNSClient;
  topicArn: string;
  /** @default 'sns' */
  name?: string;
}

export interface SnsMessage {
  subject: string;
  /** Sent as JSON. */
  body: unknown;
  /** String attributes; `severity` is the one every subscription can filter on. */
  attributes: Record<string, string>;
}

export interface SnsPublisher {
  readonly name: string;
  publish(message: SnsMessage, signal?: AbortSignal): Promise<void>;
}

export function snsPublisher(options: SnsNotifierOptions): SnsPublisher {
  const name = options.name ?? 'sns';
  return {
    name,
    async publish(message, signal) {
      const attributes = Object.fromEntries(
        Object.entries(message.attributes).map(([key, value]) => [
          key,
          { DataType: 'String', StringValue: value },
        ]),
      );
      try {
        await options.client.send(
          new PublishCommand({
            TopicArn: options.topicArn,
            Subject: cleanSubject(message.subject),
            Message: JSON.stringify(message.body),
            MessageAttributes: attributes,
          }),
          { abortSignal: signal },
        );
      } catch (error) {
        throw new NotifyError(
          name,
          `publish failed: ${redactText((error as Error).message)}`,
          undefined,
          { cause: error },
        );
      }
    },
  };
}

export function createSnsNotifier(options: SnsNotifierOptions): Notifier {
  const sns = snsPublisher(options);
  return {
    name: sns.name,
    send: (n, signal) =>
      sns.publish(
        {
          subject: subjectOf(n),
          body: n,
          attributes: {
            severity: n.severity,
            kind: n.kind,
            serviceId: n.serviceId,
            pipeId: n.pipeId,
          },
        },
        signal,
      ),
  };
}
