/** SNS: subject + JSON body, with severity/kind message attributes for subscription filters. */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { redactText } from '../redact';
import { NotifyError, subjectOf, type Notifier } from './types';

/** SNS subjects must be printable ASCII without line breaks, at most 100 characters. */
export function snsSubject(n: Parameters<typeof subjectOf>[0]): string {
  return subjectOf(n)
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 100);
}

export interface SnsNotifierOptions {
  client: SNSClient;
  topicArn: string;
  /** @default 'sns' */
  name?: string;
}

export function createSnsNotifier(options: SnsNotifierOptions): Notifier {
  const name = options.name ?? 'sns';
  return {
    name,
    async send(n, signal) {
      const attr = (value: string) => ({ DataType: 'String', StringValue: value });
      try {
        await options.client.send(
          new PublishCommand({
            TopicArn: options.topicArn,
            Subject: snsSubject(n),
            Message: JSON.stringify(n),
            MessageAttributes: {
              severity: attr(n.severity),
              kind: attr(n.kind),
              serviceId: attr(n.serviceId),
              pipeId: attr(n.pipeId),
            },
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
