/**
 * `cloudops keys adopt`: bring an existing key (say, one made in the console) under rotation.
 * Everything is checked before the first write: the service accepts the key, its record is
 * found, the secret can rotate. Then the secret's value is written in our shape (AWSCURRENT;
 * a failed rotation's AWSPENDING is cleared first), tagged with the key, and rotation turned
 * on. The next rotation replaces the key and cuts it to its grace. Running it again converges.
 */
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  RotateSecretCommand,
  type DescribeSecretCommandOutput,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { isForbidden, isUnauthorized, type ManagementClient } from '../api';
import { staticCredentials } from '../credentials';
import { registerSecret } from '../redact';
import { managementKeySecret, type KeyRecord, type ManagementKeySecret } from '../schemas';
import { KeyCommandError } from './errors';
import { keyTagsFor } from './managed';
import { keySuffixOf } from './material';
import { findKeyRecord } from './ownership';
import type { RotationDeps } from './rotation';
import { AWSCURRENT, AWSPENDING, SecretVersions } from './stages';

export interface AdoptRequest {
  /** The secret that will hold the key (an ARN, or a name: created when missing). */
  secretId: string;
  organizationId: string;
  /** The key ID (the Basic user, as the console shows it) and its secret. */
  keyId: string;
  keySecret: string;
  /** The rotation function, when the secret has none yet. */
  rotationFunctionArn?: string | undefined;
  /** Rotation schedule for a secret that has none. @default 30 */
  rotationDays?: number | undefined;
}

export interface AdoptDeps {
  secrets: SecretsManagerClient;
  /** A management client authenticating with the given key. */
  connect: RotationDeps['connect'];
  /** Lists keys when the adopted key may not (the operator's own key). */
  operator?: Pick<ManagementClient, 'listKeys'> | undefined;
}

export interface AdoptResult {
  secretId: string;
  keyRecordId: string;
  keySuffix: string;
  expireAt: string | null;
  /** Rotation was already on, or this call turned it on. */
  rotation: 'already-on' | 'turned-on';
  /** The version of an unfinished rotation whose AWSPENDING label was cleared. */
  clearedPending?: string;
}

const fail = (subject: string, message: string, cause?: unknown) =>
  new KeyCommandError(message, { subject, ...(cause ? { cause } : {}) });

export async function adoptKey(deps: AdoptDeps, request: AdoptRequest): Promise<AdoptResult> {
  registerSecret(request.keySecret);
  const key: ManagementKeySecret = {
    organizationId: request.organizationId,
    keyId: request.keyId,
    keySecret: request.keySecret,
    expireAt: null,
  };
  const record = await recordOf(deps, key);
  const described = await describeOrNothing(deps.secrets, request.secretId);
  const rotationArn = request.rotationFunctionArn ?? described?.RotationLambdaARN;
  if (!rotationArn) {
    throw fail(
      request.secretId,
      `${request.secretId} has no rotation function: give --rotation-function with the ARN of the ` +
        'rotate-key function (the stack outputs it), so the adopted key gets rotated',
    );
  }
  const value = JSON.stringify({
    ...key,
    keyRecordId: record.id,
    expireAt: record.expireAt,
  } satisfies ManagementKeySecret);
  const tags = keyTagsFor({
    keyRecordId: record.id,
    keySuffix: record.keySuffix,
    expireAt: record.expireAt,
  });
  let secretId: string;
  let clearedPending: string | undefined;
  if (described) {
    secretId = described.ARN ?? request.secretId;
    const versions = new SecretVersions(deps.secrets, secretId);
    clearedPending = await clearUnfinishedRotation(versions, described);
    await deps.secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value }));
    await versions.tag(tags);
  } else {
    const created = await deps.secrets.send(
      new CreateSecretCommand({ Name: request.secretId, SecretString: value, Tags: tags }),
    );
    secretId = created.ARN ?? request.secretId;
  }
  const rotationOn = described?.RotationEnabled === true && !request.rotationFunctionArn;
  if (!rotationOn) {
    // RotateImmediately false: Secrets Manager only tests the function (testSecret on a
    // placeholder), the key rotates on the schedule or at `keys rotate`.
    await deps.secrets.send(
      new RotateSecretCommand({
        SecretId: secretId,
        RotationLambdaARN: rotationArn,
        RotateImmediately: false,
        ...(described?.RotationRules
          ? {}
          : { RotationRules: { AutomaticallyAfterDays: request.rotationDays ?? 30 } }),
      }),
    );
  }
  return {
    secretId,
    keyRecordId: record.id,
    keySuffix: record.keySuffix,
    expireAt: record.expireAt,
    rotation: rotationOn ? 'already-on' : 'turned-on',
    ...(clearedPending ? { clearedPending } : {}),
  };
}

/**
 * The key's record, found by its suffix in the key list: read with the key itself (which also
 * proves the service accepts it), or, when it may not list keys, with the operator's key.
 */
async function recordOf(deps: AdoptDeps, key: ManagementKeySecret): Promise<KeyRecord> {
  const subject = `key …${keySuffixOf(key.keyId)}`;
  const api = deps.connect(staticCredentials(subject, key, managementKeySecret));
  let records: KeyRecord[];
  try {
    records = await api.listKeys();
  } catch (error) {
    if (isUnauthorized(error))
      throw fail(
        subject,
        `the service refuses ${subject} (401): check the key ID and its secret (the console shows a new key's secret once), and that the key is enabled and not expired`,
        error,
      );
    if (!isForbidden(error) || !deps.operator) throw error;
    // The key authenticated (403 is not 401); its record comes from the operator's list.
    records = await deps.operator.listKeys();
  } finally {
    api.close();
  }
  const record = findKeyRecord(records, key);
  if (!record)
    throw fail(
      subject,
      `no single key record ends in …${keySuffixOf(key.keyId)}: the record cannot be told apart, so the key is not adopted`,
    );
  return record;
}

async function describeOrNothing(
  client: SecretsManagerClient,
  secretId: string,
): Promise<DescribeSecretCommandOutput | undefined> {
  try {
    return await client.send(new DescribeSecretCommand({ SecretId: secretId }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    // An ARN names a secret that must exist; a name may be created.
    if (secretId.startsWith('arn:'))
      throw fail(
        secretId,
        `secret ${secretId} does not exist (check the ARN and AWS_REGION)`,
        error,
      );
    return undefined;
  }
}

/** A rotation that failed (the key had expired, say) leaves AWSPENDING on a version: drop it. */
async function clearUnfinishedRotation(
  versions: SecretVersions,
  described: DescribeSecretCommandOutput,
): Promise<string | undefined> {
  const stages = described.VersionIdsToStages ?? {};
  const stuck = Object.keys(stages).find(
    (id) => stages[id]?.includes(AWSPENDING) && !stages[id]?.includes(AWSCURRENT),
  );
  if (stuck === undefined) return undefined;
  await versions.dropPending(stuck);
  return stuck;
}
