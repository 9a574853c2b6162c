/**
 * The watchdog's DynamoDB table. Key: `pk` (S) = `<organizationId>#<serviceId>`, `sk` (S) =
 * the pipe id, or `#service` for the service's own record, so one Query reads a service.
 * Writes are conditional Puts on the `version` attribute.
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
import type * as z from 'zod';
import { parseOrThrow } from '../format-issues';
import { serviceKey, type ServiceState, type StateStore } from './store';
import { pipeRecord, serviceRecord, type PipeRecord, type ServiceRecord } from './types';

const SERVICE_SK = '#service';

export interface DynamoStateStoreOptions {
  client: DynamoDBClient;
  tableName: string;
}

function parseItem<S extends z.ZodType>(
  schema: S,
  item: Record<string, unknown>,
  where: string,
): z.output<S> {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return parseOrThrow(schema, rest, where, `stored watchdog record ${where} is invalid`);
}

export class DynamoStateStore implements StateStore {
  readonly label: string;
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;

  constructor(options: DynamoStateStoreOptions) {
    this.doc = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.table = options.tableName;
    this.label = `dynamodb ${options.tableName}`;
  }

  async loadService(organizationId: string, serviceId: string): Promise<ServiceState> {
    const pk = serviceKey(organizationId, serviceId);
    const state: ServiceState = { pipes: [], service: undefined };
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const where = `${pk}/${String(item.sk)}`;
        if (item.sk === SERVICE_SK) state.service = parseItem(serviceRecord, item, where);
        else state.pipes.push(parseItem(pipeRecord, item, where));
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return state;
  }

  private async get(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk, sk }, ConsistentRead: true }),
    );
    return out.Item;
  }

  async getPipe(
    organizationId: string,
    serviceId: string,
    pipeId: string,
  ): Promise<PipeRecord | undefined> {
    const pk = serviceKey(organizationId, serviceId);
    const item = await this.get(pk, pipeId);
    return item && parseItem(pipeRecord, item, `${pk}/${pipeId}`);
  }

  async getService(organizationId: string, serviceId: string): Promise<ServiceRecord | undefined> {
    const pk = serviceKey(organizationId, serviceId);
    const item = await this.get(pk, SERVICE_SK);
    return item && parseItem(serviceRecord, item, `${pk}/${SERVICE_SK}`);
  }

  private async conditionalPut(
    item: Record<string, unknown> & { version: number },
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ...(item.version === 0
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: '#version = :expected',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':expected': item.version - 1 },
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

  savePipe(record: PipeRecord): Promise<boolean> {
    return this.conditionalPut({
      pk: serviceKey(record.organizationId, record.serviceId),
      sk: record.pipeId,
      ...record,
    });
  }

  saveService(record: ServiceRecord): Promise<boolean> {
    return this.conditionalPut({
      pk: serviceKey(record.organizationId, record.serviceId),
      sk: SERVICE_SK,
      ...record,
    });
  }
}

/** Create the table (tests, the demo, local runs; CDK owns it in AWS). */
export async function createWatchdogTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<void> {
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
