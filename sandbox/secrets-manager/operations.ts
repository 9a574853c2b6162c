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
  updateSecretVersionStageInput,
} from './inputs';
import { versionIdsToStages } from './labels';
import { rotateSecret, type RotationInvoker } from './rotation';
import { toEpochSeconds, type SecretStore } from './store';
import type { SecretRecord } from './state';

/** What one operation needs from the emulator around it. */
interface OperationContext {
  store: SecretStore;
  invoker: RotationInvoker | undefined;
  /** Persist: called after every change of state. */
  changed: () => void;
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

  RotateSecret: async ({ store, invoker, changed }, body) => {
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
      changed,
    );
    return { ...ref(secret), VersionId: token };
  },

  ListSecrets: ({ store }, body) => {
    const input = parseInput(listSecretsInput, body);
    const secrets = store.state.secrets.filter(
      (secret) => input.IncludePlannedDeletion || secret.deletedDate === undefined,
    );
    return {
      SecretList: secrets.map((secret) => {
        // ListSecrets names the label map SecretVersionsToStages.
        const { VersionIdsToStages: _omit, ...described } = store.describe(secret);
        return { ...described, SecretVersionsToStages: versionIdsToStages(secret) };
      }),
    };
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
