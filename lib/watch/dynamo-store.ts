/**
 * The watch table in DynamoDB. Key: `pk` (S) = the scope, `sk` (S) = the id, so one Query
 * reads a scope; writes are conditional Puts on the `version` attribute.
 *
 * The layout is the one the pipe watchdog wrote before scopes existed: its scope is
 * `<organizationId>#<serviceId>` with a pipe's id or `#service` as sk, and the dashboards'
 * drift record sits at `dashboards#<owner>` / `drift`. So a deployed table is read as it is,
 * with no migration: the records' fields are a superset of what their subjects read now, and
 * notices pending in them are read by lib/watch/notices.ts as the notices they were.
 */
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import type { RecordStore, StoredRecord, WatchStore } from './store';

interface DynamoWatchStoreOptions {
  client: DynamoDBClient;
  tableName: string;
}

function withoutKey(item: Record<string, unknown>): StoredRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

/**
 * Records read and written one by one (a watcher that knows its records' ids, the key
 * sentinel): Get and Put alone, so its bundle has no Query.
 */
export class DynamoRecordStore implements RecordStore {
  readonly label: string;
  protected readonly doc: DynamoDBDocumentClient;
  protected readonly table: string;

  constructor(options: DynamoWatchStoreOptions) {
    this.doc = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.table = options.tableName;
    this.label = `dynamodb ${options.tableName}`;
  }

  async get(scope: string, id: string) {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: scope, sk: id }, ConsistentRead: true }),
    );
    return out.Item && withoutKey(out.Item);
  }

  async save(scope: string, id: string, record: { version: number }): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...record, pk: scope, sk: id },
          ...(record.version === 0
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: '#version = :expected',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':expected': record.version - 1 },
              }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      // The document client may surface the error by name only (a different SDK copy).
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }
}

/** The watch table with its scopes: a scope's records read in one Query (the watchdog's). */
export class DynamoWatchStore extends DynamoRecordStore implements WatchStore {
  async list(scope: string) {
    const records: { id: string; record: StoredRecord }[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': scope },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? [])
        records.push({ id: String(item.sk), record: withoutKey(item) });
      start = page.LastEvaluatedKey;
    } while (start);
    return records;
  }
}

/** Create the table (tests, the demo, local runs; CDK owns it in AWS). */
export async function createWatchTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
}
