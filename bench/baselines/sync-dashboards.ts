/**
 * Baseline of sync-dashboards: the credential secret, one S3 listing, one consistent read of
 * provision-alerts' version table through the document client (the stack gives the sync that
 * table), one PutEvents.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const sm = new SecretsManagerClient({});
const s3 = new S3Client({});
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const events = new EventBridgeClient({});

export async function handler(event: {
  secretId: string;
  bucket: string;
  prefix: string;
  tableName: string;
  busName: string;
}): Promise<number> {
  await sm.send(new GetSecretValueCommand({ SecretId: event.secretId }));
  const listing = await s3.send(
    new ListObjectsV2Command({ Bucket: event.bucket, Prefix: event.prefix }),
  );
  await doc.send(
    new GetCommand({ TableName: event.tableName, Key: { pk: 'baseline' }, ConsistentRead: true }),
  );
  await events.send(
    new PutEventsCommand({
      Entries: [
        { EventBusName: event.busName, Source: 'bench', DetailType: 'Baseline', Detail: '{}' },
      ],
    }),
  );
  return listing.KeyCount ?? 0;
}
