/**
 * The function's version store: one DynamoDB item per owner, key `pk` (S). `versionMs` (N) is
 * what the condition compares; `version` keeps the ISO text the event carried;
 * `declaredDigest` (S) and `declaredOwners` (L of S) what that event declared (versions.ts
 * Declaration, bounded well under the 400 KB item limit).
 * advance() is a single conditional UpdateItem, so of two concurrent writers only the newer
 * version (with its declaration) can land and the stored value never goes backwards.
 */
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { isoDateTime } from '../schemas/common';
import { parseOrThrow } from '../format-issues';
import {
  MAX_DECLARED_OWNERS,
  VERSION_TABLE_KEY,
  versionMillis,
  type Declaration,
  type Newest,
  type Settled,
  type SettledRecord,
  type VersionStore,
} from './versions';

// Spread rather than z.extend: zod's extend helper would be bundled for this alone.
const versionField = { version: isoDateTime };
const storedItem = z.looseObject(versionField);
const newestItem = z.lazy(() =>
  z.looseObject({
    ...versionField,
    declaredDigest: z.optional(z.string()),
    declaredOwners: z.optional(z.array(z.string()).check(z.maxLength(MAX_DECLARED_OWNERS))),
  }),
);
const settledItem = z.lazy(() =>
  z.looseObject({
    settledVersion: z.optional(z.string()),
    settledDigest: z.optional(z.string()),
  }),
);

export interface DynamoVersionStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** @default Date.now (written as `updatedAt`, for people reading the table) */
  now?: () => number;
}

export class DynamoVersionStore implements VersionStore {
  readonly label: string;
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly now: () => number;

  constructor(options: DynamoVersionStoreOptions) {
    this.doc = DynamoDBDocumentClient.from(options.client);
    this.table = options.tableName;
    this.now = options.now ?? Date.now;
    this.label = `dynamodb ${options.tableName}`;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.read(key, storedItem, '#version'))?.version;
  }

  async newest(key: string): Promise<Newest | undefined> {
    const item = await this.read(key, newestItem, '#version, declaredDigest, declaredOwners');
    if (!item) return undefined;
    const { version, declaredDigest: digest, declaredOwners: owners } = item;
    return digest !== undefined && owners !== undefined
      ? { version, declaration: { digest, owners } }
      : { version };
  }

  private async read<T>(
    key: string,
    shape: z.ZodMiniType<T>,
    projection: string,
  ): Promise<T | undefined> {
    const out = await this.doc.send(
      new GetCommand({
        TableName: this.table,
        Key: { [VERSION_TABLE_KEY]: key },
        ConsistentRead: true,
        ProjectionExpression: projection,
        ExpressionAttributeNames: { '#version': 'version' },
      }),
    );
    if (!out.Item) return undefined;
    return parseOrThrow(
      shape,
      out.Item,
      key,
      `stored alert version ${key} in ${this.table} is invalid`,
    );
  }

  async advance(key: string, version: string, declaration?: Declaration): Promise<boolean> {
    // A version without a declaration must not keep the older event's one.
    const declared = declaration
      ? ', declaredDigest = :digest, declaredOwners = :owners'
      : ' REMOVE declaredDigest, declaredOwners';
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [VERSION_TABLE_KEY]: key },
          UpdateExpression: `SET #ms = :ms, #version = :version, #updatedAt = :updatedAt${declared}`,
          ConditionExpression: 'attribute_not_exists(#ms) OR #ms < :ms',
          ExpressionAttributeNames: {
            '#ms': 'versionMs',
            '#version': 'version',
            '#updatedAt': 'updatedAt',
          },
          ExpressionAttributeValues: {
            ':ms': versionMillis(version),
            ':version': version,
            ':updatedAt': new Date(this.now()).toISOString(),
            ...(declaration
              ? { ':digest': declaration.digest, ':owners': declaration.owners }
              : {}),
          },
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

  /** One GetItem: the settled pair and the newest version live in the same item. */
  async settled(key: string): Promise<SettledRecord | undefined> {
    const item = await this.read(key, settledItem, '#version, settledVersion, settledDigest');
    const newest = storedItem.safeParse(item ?? {});
    if (!item?.settledVersion || !item.settledDigest || !newest.success) return undefined;
    return {
      version: item.settledVersion,
      digest: item.settledDigest,
      newest: newest.data.version,
    };
  }

  /** Conditional on the stored version: a newer claim since then keeps its own state. */
  async markSettled(key: string, settled: Settled): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { [VERSION_TABLE_KEY]: key },
          UpdateExpression: 'SET settledVersion = :version, settledDigest = :digest',
          ConditionExpression: '#ms = :ms',
          ExpressionAttributeNames: { '#ms': 'versionMs' },
          ExpressionAttributeValues: {
            ':ms': versionMillis(settled.version),
            ':version': settled.version,
            ':digest': settled.digest,
          },
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return;
      throw error;
    }
  }
}

/** Create the table (tests, local runs; CDK owns it in AWS). */
export async function createVersionTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: VERSION_TABLE_KEY, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: VERSION_TABLE_KEY, KeyType: 'HASH' }],
    }),
  );
}
