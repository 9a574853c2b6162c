/**
 * Baseline of pipe-watchdog-consumer: the credential secret, one DynamoDB query through the
 * document client, and one SNS Publish and one EventBridge PutEvents (the stack configures both
 * notifiers, and the seeded failed pipes make the function notify on its first run).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

const sm = new SecretsManagerClient({});
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const sns = new SNSClient({});
const events = new EventBridgeClient({});

export async function handler(event: {
  secretId: string;
  tableName: string;
  topicArn: string;
  busName: string;
}): Promise<number> {
  await sm.send(new GetSecretValueCommand({ SecretId: event.secretId }));
  const out = await doc.send(
    new QueryCommand({
      TableName: event.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'baseline' },
    }),
  );
  await sns.send(new PublishCommand({ TopicArn: event.topicArn, Message: 'baseline notice' }));
  await events.send(
    new PutEventsCommand({
      Entries: [
        { EventBusName: event.busName, Source: 'bench', DetailType: 'Baseline', Detail: '{}' },
      ],
    }),
  );
  return out.Count ?? 0;
}
