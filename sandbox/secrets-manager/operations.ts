import { randomUUID } from 'node:crypto';
import { invalidParameter, notFound } from './errors';
import {
  createSecretInput,
  deleteSecretInput,
  getSecretValueInput,
  listSecretsInput,
  listSecretVersionIdsInput,
  parseInput,
  putSecretValueInput,
  rotateSecretInput,
  secretIdInput,
  tagResourceInput,
  untagResourceInput,
  updateSecretVersionStageInput,
} from './inputs';
import { versionIdsToStages } from './labels';
import { rotateSecret, type RotationInvoker, type RotationTiming } from './rotation';
import { toEpochSeconds, type SecretStore } from './store';
import { matchesAll, tagSecret, untagSecret } from './tags';
import type { SecretRecord } from './state';

/** What one operation needs from the emulator around it. */
interface OperationContext {
  store: SecretStore;
  invoker: RotationInvoker | undefined;
  /** Persist: called after every change of state. */
  changed: () => void;
  rotationTiming: RotationTiming;
  /** Keeps an async rotation's background run (awaited on close). */
  track: (run: Promise<void>) => void;
}

type Operation = (
  context: OperationContext,
  body: unknown,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

const ref = (secret: SecretRecord) => ({ ARN: secret.arn, Name: secret.name });

/** The supported `X-Amz-Target: secretsmanager.<Operation>` handlers, answering AWS-shaped JSON. */
export const operations: Record<string, Operation> = {
  CreateSecret: ({ store, changed }, body) => {
    const input = parseInput(createSecretInput, body);
    const { secret, version } = store.create({
      Name: input.Name,
      Description: input.Description,
      ClientRequestToken: input.ClientRequestToken,
      value: { SecretString: input.SecretString, SecretBinary: input.SecretBinary },
    });
    if (input.Tags) tagSecret(secret, input.Tags);
    changed();
    return { ...ref(secret), ...(version ? { VersionId: version.versionId } : {}) };
  },

  PutSecretValue: ({ store, changed }, body) => {
    const input = parseInput(putSecretValueInput, body);
    const secret = store.require(input.SecretId);
    const version = store.putValue(
      secret,
      input.ClientRequestToken ?? randomUUID(),
      { SecretString: input.SecretString, SecretBinary: input.SecretBinary },
      input.VersionStages,
    );
    changed();
    return { ...ref(secret), VersionId: version.versionId, VersionStages: [...version.stages] };
  },

  GetSecretValue: ({ store, changed }, body) => {
    const input = parseInput(getSecretValueInput, body);
    const secret = store.require(input.SecretId);
    const version = store.readValue(secret, input.VersionId, input.VersionStage);
    if (store.touch(secret, version)) changed();
    return {
      ...ref(secret),
      VersionId: version.versionId,
      ...(version.secretString !== undefined ? { SecretString: version.secretString } : {}),
      ...(version.secretBinary !== undefined ? { SecretBinary: version.secretBinary } : {}),
      VersionStages: [...version.stages],
      CreatedDate: toEpochSeconds(version.createdDate),
    };
  },

  DescribeSecret: ({ store }, body) => {
    const input = parseInput(secretIdInput, body);
    const secret = store.find(input.SecretId);
    // Described even when scheduled for deletion, as in AWS.
    if (!secret) throw notFound();
    return store.describe(secret);
  },

  UpdateSecretVersionStage: ({ store, changed }, body) => {
    const input = parseInput(updateSecretVersionStageInput, body);
    const secret = store.require(input.SecretId);
    store.updateStage(secret, input.VersionStage, input.MoveToVersionId, input.RemoveFromVersionId);
    changed();
    return ref(secret);
  },

  ListSecretVersionIds: ({ store }, body) => {
    const input = parseInput(listSecretVersionIdsInput, body);
    const secret = store.require(input.SecretId);
    const versions = secret.versions.filter(
      (version) => input.IncludeDeprecated || version.stages.length > 0,
    );
    return {
      ...ref(secret),
      Versions: versions.map((version) => ({
        VersionId: version.versionId,
        VersionStages: [...version.stages],
        CreatedDate: toEpochSeconds(version.createdDate),
        ...(version.lastAccessedDate !== undefined
          ? { LastAccessedDate: toEpochSeconds(version.lastAccessedDate) }
          : {}),
      })),
    };
  },

  RotateSecret: async ({ store, invoker, changed, rotationTiming, track }, body) => {
    const input = parseInput(rotateSecretInput, body);
    const secret = store.require(input.SecretId);
    const token = input.ClientRequestToken ?? randomUUID();
    await rotateSecret(
      store,
      invoker,
      {
        secret,
        token,
        lambdaArn: input.RotationLambdaARN,
        rules: input.RotationRules,
        rotateImmediately: input.RotateImmediately ?? true,
      },
      { onChange: changed, timing: rotationTiming, track },
    );
    return { ...ref(secret), VersionId: token };
  },

  ListSecrets: ({ store }, body) => {
    const input = parseInput(listSecretsInput, body);
    const secrets = store.state.secrets.filter(
      (secret) =>
        (input.IncludePlannedDeletion || secret.deletedDate === undefined) &&
        matchesAll(secret, input.Filters ?? []),
    );
    // The token is the index of the next secret: enough for a list that does not change between pages.
    const start = input.NextToken === undefined ? 0 : Number(input.NextToken);
    if (!Number.isInteger(start) || start < 0 || start > secrets.length)
      throw invalidParameter('NextToken: not a token this endpoint gave out.');
    const end = start + (input.MaxResults ?? 100);
    return {
      SecretList: secrets.slice(start, end).map((secret) => {
        // ListSecrets names the label map SecretVersionsToStages.
        const { VersionIdsToStages: _omit, ...described } = store.describe(secret);
        return { ...described, SecretVersionsToStages: versionIdsToStages(secret) };
      }),
      ...(end < secrets.length ? { NextToken: String(end) } : {}),
    };
  },

  TagResource: ({ store, changed }, body) => {
    const input = parseInput(tagResourceInput, body);
    tagSecret(store.require(input.SecretId), input.Tags);
    changed();
    return {};
  },

  UntagResource: ({ store, changed }, body) => {
    const input = parseInput(untagResourceInput, body);
    untagSecret(store.require(input.SecretId), input.TagKeys);
    changed();
    return {};
  },

  DeleteSecret: ({ store, changed }, body) => {
    const input = parseInput(deleteSecretInput, body);
    const secret = store.find(input.SecretId);
    if (!secret) throw notFound();
    if (input.ForceDeleteWithoutRecovery && input.RecoveryWindowInDays !== undefined) {
      throw invalidParameter(
        "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.",
      );
    }
    const deletionDate = store.delete(
      secret,
      input.ForceDeleteWithoutRecovery ?? false,
      input.RecoveryWindowInDays,
    );
    changed();
    return { ...ref(secret), DeletionDate: toEpochSeconds(deletionDate) };
  },
};
