import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { CloudOpsError } from '../errors';
import type { KeyExpiryNotifier } from './sentinel';

/** Publishes a key-expiry notice to an SNS topic (status attribute for subscription filters). */
export function snsKeyExpiryNotifier(client: SNSClient, topicArn: string): KeyExpiryNotifier {
  return {
    async send(notice) {
      try {
        await client.send(
          new PublishCommand({
            TopicArn: topicArn,
            Subject: `[WARNING] API key ${notice.status}: ${notice.secretId}`.slice(0, 100),
            Message: JSON.stringify(notice),
            MessageAttributes: { status: { DataType: 'String', StringValue: notice.status } },
          }),
        );
      } catch (error) {
        throw new CloudOpsError(
          `key expiry notice to ${topicArn} failed: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
    },
  };
}
