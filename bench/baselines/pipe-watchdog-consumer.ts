/**
 * Baseline of pipe-watchdog-consumer: the credential secret, one DynamoDB query through the
 * document client, and one SNS Publish and one EventBridge PutEvents (the stack configures both
 * notifiers, and the seeded failed pipes make the function notify on its first run). Like the
 * function, it makes its SQS client on the first invocation and sends back only what it did not
 * reach (SendMessageBatch): on the bench's run both reach everything and send nothing.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

const sm = new SecretsManagerClient({});
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const sns = new SNSClient({});
const events = new EventBridgeClient({});
let sqs: SQSClient | undefined;

export async function handler(event: {
  secretId: string;
  tableName: string;
  topicArn: string;
  busName: string;
  queueUrl: string;
  /** Message bodies of the services not reached (none on the bench's run). */
  notReached: string[];
}): Promise<number> {
  sqs ??= new SQSClient({});
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
  if (event.notReached.length > 0)
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: event.queueUrl,
        Entries: event.notReached.map((MessageBody, i) => ({ Id: `m${i}`, MessageBody })),
      }),
    );
  return out.Count ?? 0;
}
