import { randomBytes, randomUUID } from 'node:crypto';
import { UNIT_MS } from '../../lib/duration';
import { invalidParameter, invalidRequest, notFound, resourceExists } from './errors';
import { attachLabel, findByStage, findVersion, removeLabel, versionIdsToStages } from './labels';
import {
  AWSCURRENT,
  AWSPENDING,
  type RotationRules,
  type SecretRecord,
  type SecretsManagerState,
  type SecretVersion,
} from './state';

const DEFAULT_REGION = 'us-east-1';
const DEFAULT_ACCOUNT_ID = '000000000000';

interface SecretValueInput {
  SecretString?: string | undefined;
  SecretBinary?: string | undefined;
}

/** AWS answers timestamps as epoch seconds. */
export const toEpochSeconds = (ms: number) => ms / 1000;

/**
 * The secrets and their versions, with the rules AWS documents for names, versions and
 * staging labels. Pure state + clock: HTTP and rotation live elsewhere.
 */
export class SecretStore {
  constructor(
    readonly state: SecretsManagerState,
    private readonly now: () => number,
    private readonly region = DEFAULT_REGION,
    private readonly accountId = DEFAULT_ACCOUNT_ID,
  ) {}

  /** By name, full ARN, or ARN without the random 6-character suffix. */
  find(secretId: string): SecretRecord | undefined {
    return this.state.secrets.find(
      (secret) =>
        secret.name === secretId || secret.arn === secretId || secret.arn.slice(0, -7) === secretId,
    );
  }

  /** A secret that exists and is not scheduled for deletion. */
  require(secretId: string): SecretRecord {
    const secret = this.find(secretId);
    if (!secret) throw notFound();
    if (secret.deletedDate !== undefined) {
      throw invalidRequest(
        "You can't perform this operation on the secret because it was marked for deletion.",
      );
    }
    return secret;
  }

  create(input: {
    Name: string;
    Description?: string | undefined;
    ClientRequestToken?: string | undefined;
    value: SecretValueInput;
  }): { secret: SecretRecord; version?: SecretVersion } {
    const existing = this.find(input.Name);
    if (existing?.deletedDate !== undefined) {
      throw invalidRequest(
        "You can't create this secret because a secret with this name is already scheduled for deletion.",
      );
    }
    if (existing)
      throw resourceExists(`The operation failed because the secret ${input.Name} already exists.`);
    const now = this.now();
    const secret: SecretRecord = {
      arn: `arn:aws:secretsmanager:${this.region}:${this.accountId}:secret:${input.Name}-${randomSuffix()}`,
      name: input.Name,
      ...(input.Description !== undefined ? { description: input.Description } : {}),
      createdDate: now,
      lastChangedDate: now,
      rotationEnabled: false,
      versions: [],
    };
    this.state.secrets.push(secret);
    if (!hasValue(input.value)) return { secret };
    checkValue(input.value);
    const version = this.newVersion(secret, input.ClientRequestToken ?? randomUUID(), input.value);
    attachLabel(secret, version, AWSCURRENT);
    return { secret, version };
  }

  /**
   * PutSecretValue: a new version (labels default to AWSCURRENT); the same token with the same
   * value is an idempotent success, with a different value ResourceExistsException. A valueless
   * placeholder (created by RotateSecret) receives the value.
   */
  putValue(
    secret: SecretRecord,
    token: string,
    value: SecretValueInput,
    stages: readonly string[] | undefined,
  ): SecretVersion {
    checkValue(value);
    if (!hasValue(value))
      throw invalidParameter('You must provide either SecretString or SecretBinary.');
    let version = findVersion(secret, token);
    if (version && hasValue(version)) {
      if (
        version.secretString === value.SecretString &&
        version.secretBinary === value.SecretBinary
      )
        return version;
      throw resourceExists(
        "You can't modify an existing version, you can only create a new version.",
      );
    }
    if (version) {
      setValue(version, value);
    } else {
      version = this.newVersion(secret, token, value);
    }
    const labels = stages ?? [AWSCURRENT];
    // The first version of a secret always becomes AWSCURRENT.
    if (!findByStage(secret, AWSCURRENT) && !labels.includes(AWSCURRENT))
      attachLabel(secret, version, AWSCURRENT);
    for (const label of labels) attachLabel(secret, version, label);
    secret.lastChangedDate = this.now();
    return version;
  }

  /** The version GetSecretValue answers with; a version without a value is "not found", as in AWS. */
  readValue(
    secret: SecretRecord,
    versionId: string | undefined,
    stage: string | undefined,
  ): SecretVersion {
    let version: SecretVersion | undefined;
    if (versionId !== undefined) {
      version = findVersion(secret, versionId);
      if (version && stage !== undefined && !version.stages.includes(stage)) version = undefined;
    } else {
      version = findByStage(secret, stage ?? AWSCURRENT);
    }
    if (!version || !hasValue(version)) throw notFound(valueNotFoundMessage(versionId, stage));
    return version;
  }

  /** LastAccessedDate is kept to the day, as AWS does; returns whether it changed. */
  touch(secret: SecretRecord, version: SecretVersion): boolean {
    const day = Math.floor(this.now() / UNIT_MS.d) * UNIT_MS.d;
    const changed = secret.lastAccessedDate !== day || version.lastAccessedDate !== day;
    secret.lastAccessedDate = day;
    version.lastAccessedDate = day;
    return changed;
  }

  /**
   * UpdateSecretVersionStage. A label held elsewhere moves only when RemoveFromVersionId names
   * its holder; RemoveFromVersionId must hold the label. Moving AWSCURRENT moves AWSPREVIOUS.
   */
  updateStage(
    secret: SecretRecord,
    stage: string,
    moveTo: string | undefined,
    removeFrom: string | undefined,
  ): void {
    if (moveTo === undefined && removeFrom === undefined) {
      throw invalidParameter('Specify MoveToVersionId, RemoveFromVersionId or both.');
    }
    const target = moveTo === undefined ? undefined : findVersion(secret, moveTo);
    if (moveTo !== undefined && !target) {
      throw notFound(
        `Secrets Manager can't find the specified secret version: MoveToVersionId ${moveTo}.`,
      );
    }
    const source = removeFrom === undefined ? undefined : findVersion(secret, removeFrom);
    if (removeFrom !== undefined && (!source || !source.stages.includes(stage))) {
      throw invalidParameter(
        `The staging label ${stage} is not attached to version ${removeFrom} (RemoveFromVersionId).`,
      );
    }
    const holder = findByStage(secret, stage);
    if (target && holder && holder !== target && holder !== source) {
      throw invalidParameter(
        `The staging label ${stage} is attached to version ${holder.versionId}; name that version in RemoveFromVersionId to move it.`,
      );
    }
    if (stage === AWSCURRENT && !target) {
      throw invalidParameter(
        `A secret must keep its ${AWSCURRENT} label: give MoveToVersionId to move it.`,
      );
    }
    if (target) attachLabel(secret, target, stage);
    else if (source) removeLabel(source, stage);
    secret.lastChangedDate = this.now();
  }

  /** RotateSecret's AWSPENDING placeholder: a version for the token with no value yet. */
  addPendingPlaceholder(secret: SecretRecord, token: string): SecretVersion {
    if (findVersion(secret, token)) {
      throw invalidRequest(
        `A version with ClientRequestToken ${token} already exists; use a new token to rotate.`,
      );
    }
    const version: SecretVersion = { versionId: token, stages: [], createdDate: this.now() };
    secret.versions.push(version);
    attachLabel(secret, version, AWSPENDING);
    return version;
  }

  /** Drop a version entirely (the rotation-configuration test removes its placeholder). */
  dropVersion(secret: SecretRecord, versionId: string): void {
    secret.versions = secret.versions.filter((version) => version.versionId !== versionId);
  }

  configureRotation(
    secret: SecretRecord,
    lambdaArn: string,
    rules: RotationRules | undefined,
  ): void {
    secret.rotationEnabled = true;
    secret.rotationLambdaArn = lambdaArn;
    if (rules) secret.rotationRules = rules;
    secret.lastChangedDate = this.now();
  }

  markRotated(secret: SecretRecord): void {
    secret.lastRotatedDate = this.now();
  }

  delete(secret: SecretRecord, force: boolean, recoveryDays = 30): number {
    const now = this.now();
    if (force) {
      this.state.secrets = this.state.secrets.filter((candidate) => candidate !== secret);
      return now;
    }
    secret.deletedDate = now;
    return now + recoveryDays * UNIT_MS.d;
  }

  describe(secret: SecretRecord): Record<string, unknown> {
    return {
      ARN: secret.arn,
      Name: secret.name,
      ...(secret.description !== undefined ? { Description: secret.description } : {}),
      RotationEnabled: secret.rotationEnabled,
      ...(secret.rotationLambdaArn !== undefined
        ? { RotationLambdaARN: secret.rotationLambdaArn }
        : {}),
      ...(secret.rotationRules !== undefined ? { RotationRules: secret.rotationRules } : {}),
      ...(secret.tags?.length ? { Tags: secret.tags.map((t) => ({ ...t })) } : {}),
      ...optionalDate('LastRotatedDate', secret.lastRotatedDate),
      LastChangedDate: toEpochSeconds(secret.lastChangedDate),
      ...optionalDate('LastAccessedDate', secret.lastAccessedDate),
      ...optionalDate('DeletedDate', secret.deletedDate),
      ...optionalDate('NextRotationDate', nextRotation(secret)),
      CreatedDate: toEpochSeconds(secret.createdDate),
      VersionIdsToStages: versionIdsToStages(secret),
    };
  }

  private newVersion(
    secret: SecretRecord,
    versionId: string,
    value: SecretValueInput,
  ): SecretVersion {
    const version: SecretVersion = { versionId, stages: [], createdDate: this.now() };
    setValue(version, value);
    secret.versions.push(version);
    secret.lastChangedDate = version.createdDate;
    return version;
  }
}

function hasValue(value: {
  SecretString?: unknown;
  SecretBinary?: unknown;
  secretString?: unknown;
  secretBinary?: unknown;
}): boolean {
  return (
    value.SecretString !== undefined ||
    value.SecretBinary !== undefined ||
    value.secretString !== undefined ||
    value.secretBinary !== undefined
  );
}

function checkValue(value: SecretValueInput): void {
  if (value.SecretString !== undefined && value.SecretBinary !== undefined) {
    throw invalidParameter(
      "You can't specify both SecretString and SecretBinary in the same request.",
    );
  }
}

function setValue(version: SecretVersion, value: SecretValueInput): void {
  if (value.SecretString !== undefined) version.secretString = value.SecretString;
  if (value.SecretBinary !== undefined) version.secretBinary = value.SecretBinary;
}

function valueNotFoundMessage(versionId: string | undefined, stage: string | undefined): string {
  const parts: string[] = [];
  if (versionId !== undefined) parts.push(`VersionId: ${versionId}`);
  if (stage !== undefined || versionId === undefined)
    parts.push(`staging label: ${stage ?? AWSCURRENT}`);
  return `Secrets Manager can't find the specified secret value for ${parts.join(' and ')}`;
}

function nextRotation(secret: SecretRecord): number | undefined {
  const days = secret.rotationRules?.AutomaticallyAfterDays;
  if (!secret.rotationEnabled || days === undefined) return undefined;
  return (secret.lastRotatedDate ?? secret.createdDate) + days * UNIT_MS.d;
}

function optionalDate(key: string, ms: number | undefined): Record<string, number> {
  return ms === undefined ? {} : { [key]: toEpochSeconds(ms) };
}

function randomSuffix(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(randomBytes(6), (byte) => alphabet[byte % alphabet.length]).join('');
}
