/**
 * Baseline of sync-dashboards deployed in report mode: the repair baseline's calls (the
 * credential secret, one S3 listing, one consistent read of provision-alerts' version table, one
 * PutEvents) plus what the stack binds for telling drift: one Put of the drift record in the
 * watch table through the document client and one SNS Publish (the notifications topic).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

const sm = new SecretsManagerClient({});
const s3 = new S3Client({});
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const events = new EventBridgeClient({});
const sns = new SNSClient({});

export async function handler(event: {
  secretId: string;
  bucket: string;
  prefix: string;
  tableName: string;
  watchTableName: string;
  busName: string;
  topicArn: string;
}): Promise<number> {
  await sm.send(new GetSecretValueCommand({ SecretId: event.secretId }));
  const listing = await s3.send(
    new ListObjectsV2Command({ Bucket: event.bucket, Prefix: event.prefix }),
  );
  await doc.send(
    new GetCommand({ TableName: event.tableName, Key: { pk: 'baseline' }, ConsistentRead: true }),
  );
  await doc.send(
    new PutCommand({
      TableName: event.watchTableName,
      Item: { pk: 'dashboards#baseline', sk: 'drift', version: 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
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
  return listing.KeyCount ?? 0;
}
