/**
 * Baseline of provision-alerts: the credential secret (middy) and one consistent read of the
 * version table through the document client, as the function's first calls.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const sm = new SecretsManagerClient({});
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export async function handler(event: { secretId: string; tableName: string }): Promise<boolean> {
  const out = await sm.send(new GetSecretValueCommand({ SecretId: event.secretId }));
  await doc.send(
    new GetCommand({ TableName: event.tableName, Key: { pk: 'baseline' }, ConsistentRead: true }),
  );
  return typeof out.SecretString === 'string';
}
