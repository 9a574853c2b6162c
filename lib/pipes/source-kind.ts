/**
 * A pipe's source kind in one vocabulary, the listing's source members (API-FACTS, August 2026:
 * kafka, objectStorage, kinesis, pubsub, postgres, mysql, bigquery, mongodb), whether it was read
 * from a listed pipe or from the metrics' `clickpipe_source` label, which names some sources by
 * vendor or service (s3, confluent, ...).
 */
import type { Pipe } from '../schemas';

const SOURCE_MEMBERS = [
  'kafka',
  'objectStorage',
  'kinesis',
  'pubsub',
  'postgres',
  'mysql',
  'bigquery',
  'mongodb',
] as const;

/** Database (CDC) sources: they number batches instead of counting events, and resync. */
const DATABASE_SOURCES: ReadonlySet<string> = new Set(['postgres', 'mysql', 'bigquery', 'mongodb']);

/** `clickpipe_source` values that are not member names themselves (lower case). */
const LABEL_MEMBERS: Readonly<Record<string, string>> = {
  s3: 'objectStorage',
  gcs: 'objectStorage',
  azureblobstorage: 'objectStorage',
  objectstorage: 'objectStorage',
  confluent: 'kafka',
  msk: 'kafka',
  redpanda: 'kafka',
  warpstream: 'kafka',
  azureeventhub: 'kafka',
  azureeventhubs: 'kafka',
  postgresql: 'postgres',
};

/** The member a listed pipe's `source` holds, if any. */
export function sourceKindOfPipe(pipe: Pick<Pipe, 'source'>): string | undefined {
  const source = pipe.source;
  return SOURCE_MEMBERS.find((member) => source?.[member]);
}

/** The member a metrics `clickpipe_source` label stands for; an unknown label is kept as sent. */
export function sourceKindOfLabel(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const lower = label.toLowerCase();
  return LABEL_MEMBERS[lower] ?? SOURCE_MEMBERS.find((m) => m.toLowerCase() === lower) ?? label;
}

export function isDatabaseSource(kind: string | undefined): boolean {
  return kind !== undefined && DATABASE_SOURCES.has(kind);
}
