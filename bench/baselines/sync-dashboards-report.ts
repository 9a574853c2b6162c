/**
 * Baseline of sync-dashboards deployed in report mode: the repair baseline's calls (the
 * credential secret, one S3 listing, one consistent read of provision-alerts' version table, one
 * PutEvents) plus what the stack binds for telling drift: one Put of the drift record in the
 * watch table through the document client and one SNS Publish (the notifications topic).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { handler as repairBaseline } from './sync-dashboards';

const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const sns = new SNSClient({});

export async function handler(
  event: Parameters<typeof repairBaseline>[0] & { watchTableName: string; topicArn: string },
): Promise<number> {
  const listed = await repairBaseline(event);
  await doc.send(
    new PutCommand({
      TableName: event.watchTableName,
      Item: { pk: 'dashboards#baseline', sk: 'drift', version: 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  await sns.send(new PublishCommand({ TopicArn: event.topicArn, Message: 'baseline notice' }));
  return listed;
}
