/**
 * Where watched records live, keyed by (scope, id): a subject's scope groups what one run
 * reads at once (a service's pipes, one deployment's drift), the id names one record in it.
 * Every write is conditional on the version it read, so of two overlapping runs only one can
 * claim a change (and so send its notices). Records are stored as the subject gives them and
 * parsed by the subject (parseRecord) when read. The stores: DynamoDB (dynamo-store.ts, the
 * functions) and a JSON file or memory (local-store.ts, the CLI).
 */
import type * as z from 'zod/mini';
import { parseOrThrow } from '../format-issues';
import type { RecordIo } from './claims';

export type StoredRecord = Record<string, unknown>;

export interface RecordStore {
  readonly label: string;
  get(scope: string, id: string): Promise<StoredRecord | undefined>;
  /**
   * Write `record` if the stored copy still has version `record.version - 1` (absent when
   * `record.version` is 0). Resolves false when another writer got there first.
   */
  save(scope: string, id: string, record: { version: number }): Promise<boolean>;
}

export interface WatchStore extends RecordStore {
  /** Every record of one scope, by id (one request in DynamoDB). */
  list(scope: string): Promise<{ id: string; record: StoredRecord }[]>;
}

/** A stored record through its subject's schema; a bad one names the store, scope and id. */
export function parseRecord<S extends z.ZodMiniType>(
  store: RecordStore,
  schema: S,
  scope: string,
  id: string,
  record: StoredRecord,
): z.output<S> {
  const where = `${store.label} ${scope}/${id}`;
  return parseOrThrow(schema, record, where, `stored watch record ${where} is invalid`);
}

/** Save and re-read one record (what a claim needs to record deliveries later). */
export function recordIo<S extends z.ZodMiniType<{ version: number }>>(
  store: RecordStore,
  schema: S,
  scope: string,
  id: string,
): RecordIo<z.output<S>> {
  return {
    save: (record) => store.save(scope, id, record),
    reload: async () => {
      const record = await store.get(scope, id);
      return record && parseRecord(store, schema, scope, id, record);
    },
  };
}
