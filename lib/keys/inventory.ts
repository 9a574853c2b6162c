/**
 * What the key audit reads, and the one call that reads it and audits: the organization's keys
 * and activities (one request each) and our key secrets' metadata (DescribeSecret or
 * ListSecrets: tags and rotation, never a value).
 */
import {
  DescribeSecretCommand,
  ListSecretsCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { ApiError, isForbidden, isUnauthorized, type ManagementClient } from '../api';
import type { Activity, KeyRecord } from '../schemas';
import {
  auditKeys,
  listKeysByRisk,
  type AuditPolicy,
  type KeyFinding,
  type KeyListing,
} from './audit';
import { KEY_TAGS, managedSecretFrom, type ManagedSecret } from './managed';
import { UNIT_MS } from '../duration';

/** The end of every warning about an audit that could not list the keys. */
export const TAGS_ONLY = "only our key secrets' tags were checked";

/** Our key secrets by id (the sentinel's list): one DescribeSecret each. */
export async function describeKeySecrets(
  client: SecretsManagerClient,
  secretIds: readonly string[],
): Promise<ManagedSecret[]> {
  const secrets: ManagedSecret[] = [];
  for (const secretId of secretIds) {
    const described = await client.send(new DescribeSecretCommand({ SecretId: secretId }));
    secrets.push(managedSecretFrom(described, secretId));
  }
  return secrets;
}

/**
 * Every secret the rotator (or `keys adopt`) tagged with its key, found by that tag: the key
 * secrets of every deployment this AWS identity may list. Plus `also` (described by id), which
 * may not be tagged yet.
 */
export async function findKeySecrets(
  client: SecretsManagerClient,
  also: readonly string[] = [],
): Promise<ManagedSecret[]> {
  const found: ManagedSecret[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.send(
      new ListSecretsCommand({
        Filters: [{ Key: 'tag-key', Values: [KEY_TAGS.recordId] }],
        MaxResults: 100,
        NextToken,
      }),
    );
    for (const entry of page.SecretList ?? [])
      if (entry.ARN) found.push(managedSecretFrom(entry, entry.ARN));
    NextToken = page.NextToken;
  } while (NextToken);
  const known = new Set(found.flatMap((s) => [s.secretId, s.name]));
  const missing = also.filter((id) => !known.has(id));
  const extra = await describeKeySecrets(client, missing);
  return [...found, ...extra.filter((s) => !known.has(s.secretId))];
}

/** The two management calls the audit makes (a ManagementClient fits). */
export type AuditApi = Pick<ManagementClient, 'listKeys' | 'listActivities'>;

/** What the audit found (the sentinel tells these; `keys list` adds the listing). */
export interface KeyFindingsReport {
  /** ISO time of the audit. */
  at: string;
  findings: KeyFinding[];
  secrets: ManagedSecret[];
  /** Whether the key list was read (else only our secrets' tags were checked). */
  keysListed: boolean;
  /** What could not be read, so the report may be partial: one sentence each. */
  warnings: string[];
}

export interface KeyAuditReport extends KeyFindingsReport {
  /** Every key, riskiest first; empty when the keys could not be listed. */
  keys: KeyListing[];
}

export interface KeyAuditOptions {
  /** Lists keys and activities; without it only our secrets' tags are checked. */
  api: AuditApi | undefined;
  secrets: ManagedSecret[];
  /** Epoch ms. */
  now: number;
  policy: AuditPolicy;
  /**
   * Who `api` authenticates as, when a 401 should not end the audit (the sentinel's own key):
   * then the refused key is said in a warning and only our secrets' tags are checked.
   */
  refusedKeyFallback?: string;
}

/** What the key list gave: the keys, or none (warned), and whether the key was refused. */
interface KeyList {
  keys: KeyRecord[] | undefined;
  refused: boolean;
}

async function listKeysOrWarn(
  api: AuditApi,
  refusedKey: string | undefined,
  warnings: string[],
): Promise<KeyList> {
  try {
    return { keys: await api.listKeys(), refused: false };
  } catch (error) {
    if (isUnauthorized(error) && refusedKey !== undefined) {
      warnings.push(`the service refuses ${refusedKey} (401): ${TAGS_ONLY}`);
      return { keys: undefined, refused: true };
    }
    if (!isForbidden(error)) throw error;
    warnings.push(`the key this audit runs with may not list keys (403): ${TAGS_ONLY}`);
    return { keys: undefined, refused: false };
  }
}

/** The audit with every key listed by risk (`cloudops keys audit|list`). */
export async function runKeyAudit(options: KeyAuditOptions): Promise<KeyAuditReport> {
  const { records, ...report } = await auditKeyFindings(options);
  const { findings, secrets } = report;
  const keys = records ? listKeysByRisk(records, findings, secrets, options.policy.namePrefix) : [];
  return { ...report, keys };
}

/** Reads the keys and the activities of the last `unusedDays` (at least 90), then audits. */
export async function auditKeyFindings(
  options: KeyAuditOptions,
): Promise<KeyFindingsReport & { records: KeyRecord[] | undefined }> {
  const { api, now, policy, secrets } = options;
  const warnings: string[] = [];
  let keys: KeyRecord[] | undefined;
  let activities: Activity[] = [];
  const listed = api && (await listKeysOrWarn(api, options.refusedKeyFallback, warnings));
  // A refused key would be refused the activities too: no second call to hear it again.
  if (api && listed && !listed.refused) {
    keys = listed.keys;
    const from = new Date(now - Math.max(policy.unusedDays, 90) * UNIT_MS.d).toISOString();
    activities = await api
      .listActivities({ from, to: new Date(now).toISOString() })
      .catch((error: unknown) => {
        // The trail only adds who made a key: the rest of the audit stands without it.
        if (!(error instanceof ApiError)) throw error;
        warnings.push(
          `the activities could not be read (${error.status}): keys made outside rotation are not named`,
        );
        return [];
      });
  }
  const findings = auditKeys({ keys, activities, secrets, now, policy });
  return {
    at: new Date(now).toISOString(),
    findings,
    records: keys,
    secrets,
    keysListed: keys !== undefined,
    warnings,
  };
}
