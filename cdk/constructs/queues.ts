/**
 * Dead-letter queues: encrypted, TLS only, 14 days to look at what failed, and declared as
 * dead-letter queues (RedriveAllowPolicy), so a redrive back to their source is possible.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export function deadLetterQueue(scope: Construct, id: string, what: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    // allowAll, not byQueue: naming the source queue here while it names this one as its
    // dead-letter queue is a dependency cycle; most of these serve Lambda, rules or schedules.
    redriveAllowPolicy: { redrivePermission: sqs.RedrivePermission.ALLOW_ALL },
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself the dead-letter queue of ${what}.`,
  });
  Validations.of(queue).acknowledge({
    id: 'Serverless-SQSRedrivePolicy',
    reason: `Dead-letter queue of ${what}: nothing to redrive to; its depth raises an alarm.`,
  });
  return queue;
}
