/**
 * Secret tags as AWS documents them: at most 50 per secret, keys 1-128 and values 0-256
 * characters, keys starting with `aws:` reserved; TagResource overwrites a key's value,
 * UntagResource ignores keys the secret does not have. ListSecrets filters match by prefix,
 * case-sensitively; a value starting with `!` negates; values of one filter are OR-ed and the
 * filters AND-ed.
 */
import * as z from 'zod';
import { invalidParameter } from './errors';
import type { SecretRecord } from './state';

const MAX_TAGS = 50;

export const tag = z.object({
  Key: z.string().min(1).max(128),
  Value: z.string().max(256),
});
type Tag = z.infer<typeof tag>;

export function tagSecret(secret: SecretRecord, tags: readonly Tag[]): void {
  const reserved = tags.find((t) => t.Key.toLowerCase().startsWith('aws:'));
  if (reserved) throw invalidParameter(`Tag key ${reserved.Key}: the aws: prefix is reserved.`);
  const merged = new Map((secret.tags ?? []).map((t) => [t.Key, t.Value]));
  for (const { Key, Value } of tags) merged.set(Key, Value);
  if (merged.size > MAX_TAGS)
    throw invalidParameter(
      `A secret can have at most ${MAX_TAGS} tags (it would have ${merged.size}).`,
    );
  secret.tags = [...merged].map(([Key, Value]) => ({ Key, Value }));
}

export function untagSecret(secret: SecretRecord, keys: readonly string[]): void {
  const drop = new Set(keys);
  secret.tags = (secret.tags ?? []).filter((t) => !drop.has(t.Key));
}

const FILTER_KEYS = [
  'description',
  'name',
  'tag-key',
  'tag-value',
  'primary-region',
  'owning-service',
  'all',
] as const;
export const listFilter = z.object({
  Key: z.enum(FILTER_KEYS),
  Values: z.array(z.string().min(1).max(512)).min(1).max(10),
});
type ListFilter = z.infer<typeof listFilter>;

/** The strings of a secret a filter key looks at. */
function fieldsFor(secret: SecretRecord, key: ListFilter['Key']): string[] {
  const tags = secret.tags ?? [];
  switch (key) {
    case 'name':
      return [secret.name];
    case 'description':
      return secret.description === undefined ? [] : [secret.description];
    case 'tag-key':
      return tags.map((t) => t.Key);
    case 'tag-value':
      return tags.map((t) => t.Value);
    case 'all':
      return [
        secret.name,
        ...(secret.description === undefined ? [] : [secret.description]),
        ...tags.flatMap((t) => [t.Key, t.Value]),
      ];
    default:
      return [];
  }
}

function matches(secret: SecretRecord, filter: ListFilter): boolean {
  const fields = fieldsFor(secret, filter.Key);
  return filter.Values.some((value) =>
    value.startsWith('!')
      ? !fields.some((field) => field.startsWith(value.slice(1)))
      : fields.some((field) => field.startsWith(value)),
  );
}

export const matchesAll = (secret: SecretRecord, filters: readonly ListFilter[]) =>
  filters.every((filter) => matches(secret, filter));
