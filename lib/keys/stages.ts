import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  TagResourceCommand,
  type Tag,
  UpdateSecretVersionStageCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { AWSCURRENT } from '../credentials/secrets-manager';
import { RotationError } from './errors';

export { AWSCURRENT };
export const AWSPENDING = 'AWSPENDING';
export const AWSPREVIOUS = 'AWSPREVIOUS';

export interface SecretState {
  /** The secret's name (stable, unlike an ARN given in the event). */
  name: string;
  /**
   * The secret's full ARN: account, region, name and the random suffix Secrets Manager adds
   * when the secret is created, so it differs between deployments even when names collide.
   */
  arn: string;
  rotationEnabled: boolean;
  stages: Record<string, string[]>;
  currentVersionId: string | undefined;
}

/** Secrets Manager calls the rotator makes; errors name the operation and the secret. */
export class SecretVersions {
  constructor(
    private readonly client: SecretsManagerClient,
    readonly secretId: string,
  ) {}

  async describe(): Promise<SecretState> {
    const meta = await this.call('DescribeSecret', () =>
      this.client.send(new DescribeSecretCommand({ SecretId: this.secretId })),
    );
    const stages = meta.VersionIdsToStages ?? {};
    return {
      name: meta.Name ?? this.secretId,
      arn: meta.ARN ?? meta.Name ?? this.secretId,
      rotationEnabled: meta.RotationEnabled === true,
      stages,
      currentVersionId: Object.keys(stages).find((id) => stages[id]?.includes(AWSCURRENT)),
    };
  }

  /** The version holding `stage`, if any (from a describe). */
  static versionWith(state: SecretState, stage: string): string | undefined {
    return Object.keys(state.stages).find((id) => state.stages[id]?.includes(stage));
  }

  /** The SecretString of a version, or undefined when it has no value (RotateSecret's placeholder). */
  async read(stage: string, versionId?: string): Promise<string | undefined> {
    try {
      const out = await this.client.send(
        new GetSecretValueCommand({
          SecretId: this.secretId,
          VersionStage: stage,
          VersionId: versionId,
        }),
      );
      return out.SecretString;
    } catch (error) {
      if (error instanceof ResourceNotFoundException && versionId !== undefined) return undefined;
      throw this.wrap('GetSecretValue', error);
    }
  }

  async putPending(token: string, secretString: string): Promise<void> {
    await this.call('PutSecretValue', () =>
      this.client.send(
        new PutSecretValueCommand({
          SecretId: this.secretId,
          ClientRequestToken: token,
          SecretString: secretString,
          VersionStages: [AWSPENDING],
        }),
      ),
    );
  }

  /** AWSCURRENT moves to the token's version (AWSPREVIOUS follows); AWSPENDING stays on it. */
  async moveCurrent(token: string, currentVersionId: string | undefined): Promise<void> {
    await this.call('UpdateSecretVersionStage', () =>
      this.client.send(
        new UpdateSecretVersionStageCommand({
          SecretId: this.secretId,
          VersionStage: AWSCURRENT,
          MoveToVersionId: token,
          RemoveFromVersionId: currentVersionId,
        }),
      ),
    );
  }

  /** Tags the secret (a tag already there takes the new value); never touches a value. */
  async tag(tags: Tag[]): Promise<void> {
    await this.call('TagResource', () =>
      this.client.send(new TagResourceCommand({ SecretId: this.secretId, Tags: tags })),
    );
  }

  /** The last act of a rotation: AWSPENDING leaves the (now current) version. */
  async dropPending(token: string): Promise<void> {
    await this.call('UpdateSecretVersionStage', () =>
      this.client.send(
        new UpdateSecretVersionStageCommand({
          SecretId: this.secretId,
          VersionStage: AWSPENDING,
          RemoveFromVersionId: token,
        }),
      ),
    );
  }

  private async call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.wrap(operation, error);
    }
  }

  private wrap(operation: string, error: unknown): RotationError {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return new RotationError(`${operation} on secret ${this.secretId} failed: ${reason}`, {
      secretId: this.secretId,
      cause: error,
    });
  }
}

/** proceed: false = the token is AWSCURRENT already (a retry of a finished rotation). */
interface TokenVerdict {
  proceed: boolean;
  state: SecretState;
}

/**
 * The guards of AWS's rotation templates: rotation enabled; the token is a version with a
 * stage; a token already AWSCURRENT means a finished rotation (a retry): do nothing; a token
 * that is not AWSPENDING is an error.
 */
export async function checkToken(versions: SecretVersions, token: string): Promise<TokenVerdict> {
  const state = await versions.describe();
  const id = versions.secretId;
  if (!state.rotationEnabled)
    throw new RotationError(`Secret ${id} is not enabled for rotation`, { secretId: id });
  const stages = state.stages[token];
  if (!stages || stages.length === 0) {
    throw new RotationError(`Secret version ${token} has no stage for rotation of secret ${id}`, {
      secretId: id,
    });
  }
  if (stages.includes(AWSCURRENT)) return { proceed: false, state };
  if (!stages.includes(AWSPENDING)) {
    throw new RotationError(
      `Secret version ${token} is not set as AWSPENDING for rotation of secret ${id}`,
      { secretId: id },
    );
  }
  return { proceed: true, state };
}
