/**
 * Baseline of key-sentinel, the daily key audit: describe the key secret (its tags), read the
 * sentinel's own key, one DynamoDB read through the document client (its open findings) and one
 * SNS Publish (the seeded admin key never expires: a finding).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const sm = new SecretsManagerClient({});
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const sns = new SNSClient({});

export async function handler(event: {
  secretId: string;
  tableName: string;
  topicArn: string;
}): Promise<boolean> {
  await sm.send(new DescribeSecretCommand({ SecretId: event.secretId }));
  const out = await sm.send(
    new GetSecretValueCommand({ SecretId: event.secretId, VersionStage: 'AWSCURRENT' }),
  );
  await doc.send(new GetCommand({ TableName: event.tableName, Key: { pk: 'baseline', sk: 'x' } }));
  await sns.send(new PublishCommand({ TopicArn: event.topicArn, Message: 'baseline notice' }));
  return typeof out.SecretString === 'string';
}
