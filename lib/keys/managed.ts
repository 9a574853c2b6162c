/**
 * Which secret rotates which key, known without reading any key secret value: the rotator (and
 * `keys adopt`) tags each key secret with its key's record id, suffix and expiry, and with the
 * record id of the key it replaced (retiring through its grace). Keys the rotator made carry
 * the secret's marker in their name (ownership.ts), which names their secret too.
 */
import type { Tag } from '@aws-sdk/client-secrets-manager';
import type { KeyRecord } from '../schemas';
import { isOwned, ownedNamePrefix } from './ownership';

/** The tag keys on a key secret (`aws:` is reserved; ours carry their own prefix). */
export const KEY_TAGS = {
  recordId: 'cloudops:key-record-id',
  suffix: 'cloudops:key-suffix',
  expireAt: 'cloudops:key-expire-at',
  previousRecordId: 'cloudops:previous-key-record-id',
} as const;

/** What the tags of a key secret say about the key it holds. */
export interface KeyTags {
  keyRecordId: string;
  keySuffix: string;
  /** ISO time, or null: never. */
  expireAt: string | null;
  /** The key this one replaced (cut to its grace by the rotation). */
  previousKeyRecordId?: string;
}

const NEVER = 'never';

export function keyTagsFor(tags: KeyTags): Tag[] {
  return [
    { Key: KEY_TAGS.recordId, Value: tags.keyRecordId },
    { Key: KEY_TAGS.suffix, Value: tags.keySuffix },
    { Key: KEY_TAGS.expireAt, Value: tags.expireAt ?? NEVER },
    ...(tags.previousKeyRecordId
      ? [{ Key: KEY_TAGS.previousRecordId, Value: tags.previousKeyRecordId }]
      : []),
  ];
}

/** The key tags of a secret, or undefined when it has none (never rotated since tags existed). */
export function readKeyTags(tags: readonly Tag[] | undefined): KeyTags | undefined {
  const value = (key: string) => tags?.find((t) => t.Key === key)?.Value;
  const keyRecordId = value(KEY_TAGS.recordId);
  if (!keyRecordId) return undefined;
  const expireAt = value(KEY_TAGS.expireAt);
  const previous = value(KEY_TAGS.previousRecordId);
  return {
    keyRecordId,
    keySuffix: value(KEY_TAGS.suffix) ?? '',
    expireAt:
      !expireAt || expireAt === NEVER || Number.isNaN(Date.parse(expireAt)) ? null : expireAt,
    ...(previous ? { previousKeyRecordId: previous } : {}),
  };
}

/** A key secret of ours, as DescribeSecret or ListSecrets shows it (no value). */
export interface ManagedSecret {
  /** The secret's ARN. */
  secretId: string;
  name: string;
  rotationEnabled: boolean;
  /**
   * Holds a value someone put there: tagged, rotated, or with an AWSPREVIOUS version. A secret
   * with its deploy-time placeholder alone is not configured yet (and not a finding).
   */
  seeded: boolean;
  /** Epoch ms, when Secrets Manager schedules the next rotation. */
  nextRotationAt?: number | undefined;
  key?: KeyTags | undefined;
}

/** The fields of DescribeSecret's answer (and of a ListSecrets entry) a ManagedSecret is read from. */
export interface DescribedSecret {
  ARN?: string | undefined;
  Name?: string | undefined;
  RotationEnabled?: boolean | undefined;
  NextRotationDate?: Date | undefined;
  LastRotatedDate?: Date | undefined;
  Tags?: Tag[] | undefined;
  /** DescribeSecret's label map; ListSecrets calls it SecretVersionsToStages. */
  VersionIdsToStages?: Record<string, string[]> | undefined;
  SecretVersionsToStages?: Record<string, string[]> | undefined;
}

export function managedSecretFrom(described: DescribedSecret, secretId: string): ManagedSecret {
  const key = readKeyTags(described.Tags);
  const stages = described.VersionIdsToStages ?? described.SecretVersionsToStages ?? {};
  return {
    secretId: described.ARN ?? secretId,
    name: described.Name ?? secretId,
    rotationEnabled: described.RotationEnabled === true,
    seeded:
      key !== undefined ||
      described.LastRotatedDate !== undefined ||
      Object.values(stages).some((labels) => labels.includes('AWSPREVIOUS')),
    nextRotationAt: described.NextRotationDate?.getTime(),
    key,
  };
}

/**
 * Who looks after a key: the secret whose current key it is; the secret it is retiring from
 * (replaced by a rotation, expiring through its grace, or an earlier key the rotator disabled);
 * `owned`: made by the rotator of a secret whose tags do not say yet which key is current; or a
 * rotator of another deployment (its name carries a marker no secret of ours has).
 */
export type Management =
  | { kind: 'current' | 'retiring' | 'owned'; secret: ManagedSecret }
  | { kind: 'other-deployment'; marker: string };

/** `<prefix><10 hex>-`: the marker the rotator puts in every key name it makes. */
const markerOf = (name: string, namePrefix: string): string | undefined => {
  if (!name.startsWith(namePrefix)) return undefined;
  const tag = /^([0-9a-f]{10})-/.exec(name.slice(namePrefix.length));
  return tag ? `${namePrefix}${tag[1]}-` : undefined;
};

export function managementOf(
  record: KeyRecord,
  secrets: readonly ManagedSecret[],
  namePrefix: string,
): Management | undefined {
  const current = secrets.find((s) => s.key?.keyRecordId === record.id);
  if (current) return { kind: 'current', secret: current };
  const replaced = secrets.find((s) => s.key?.previousKeyRecordId === record.id);
  if (replaced) return { kind: 'retiring', secret: replaced };
  const owner = secrets.find((s) => isOwned(record, ownedNamePrefix(namePrefix, s.secretId)));
  if (owner) return { kind: owner.key ? 'retiring' : 'owned', secret: owner };
  const marker = markerOf(record.name, namePrefix);
  return marker ? { kind: 'other-deployment', marker } : undefined;
}

/** "cloudops/prod/watchdog-key (current)": for a list column and a finding. */
export function describeManagement(management: Management | undefined): string {
  if (!management) return '';
  if (management.kind === 'other-deployment') return `another deployment (${management.marker}…)`;
  return `${management.secret.name} (${management.kind})`;
}
