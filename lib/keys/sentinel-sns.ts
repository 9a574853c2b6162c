import type { SNSClient } from '@aws-sdk/client-sns';
import { snsPublisher } from '../notify/sns';
import type { KeyExpiryNotifier } from './sentinel';

/**
 * Key-expiry notices through lib/notify's SNS publisher (same subject rules and attributes as
 * the watchdog's, so one subscription filter on `severity` sees both).
 */
export function snsKeyExpiryNotifier(client: SNSClient, topicArn: string): KeyExpiryNotifier {
  const sns = snsPublisher({ client, topicArn });
  return {
    send(notice) {
      const severity = notice.status === 'expired' ? 'critical' : 'warning';
      // Subjects stop at 100 characters: name the secret, not its whole ARN.
      const secret = notice.secretId.split(':secret:').pop();
      return sns.publish({
        subject: `[${severity.toUpperCase()}] API key ${notice.status}: ${secret}`,
        body: notice,
        attributes: { severity, kind: 'key-expiry', status: notice.status },
      });
    },
  };
}
