/** `cloudops keys rotate`: run the four steps here, or start RotateSecret and follow it. */
import { randomUUID } from 'node:crypto';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetSecretValueCommand, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { isForbidden } from '../../lib/api';
import { readConnectionEnv } from '../../lib/config';
import { parseSecret } from '../../lib/credentials';
import { CloudOpsError } from '../../lib/errors';
import {
  findKeyRecord,
  followRotation,
  formatDuration,
  keySuffixOf,
  listKeysAsAdmin,
  readRotationConfig,
  rotateLocally,
  rotationDeps,
  SecretVersions,
  type RotationDeps,
} from '../../lib/keys';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import { parseCommand, UsageError } from '../args';
import { cliLogger, secretsManagerClientFromEnv } from '../connect';
import { CliFailure } from '../failure';
import type { CliIO } from '../io';
import { durationFlag } from './keys-flags';
import { rotateSpec } from './keys-help';

/** RotateSecret's function has four steps of at most a minute each, plus Lambda's start. */
const DEFAULT_WAIT_MS = 5 * 60_000;

interface KeyView {
  keySuffix: string;
  expireAt: string | null;
}

export async function runKeysRotate(argv: string[], io: CliIO, signal: AbortSignal) {
  const { values } = parseCommand(rotateSpec, argv);
  const via = values.via ?? 'local';
  if (via !== 'local' && via !== 'secrets-manager') {
    throw new UsageError(`--via expects local or secrets-manager, got "${via}"`);
  }
  const waitMs = durationFlag('wait', values.wait, DEFAULT_WAIT_MS);
  const connection = readConnectionEnv(io.env, via === 'local' ? ['CLOUDOPS_API_URL'] : []);
  const secretId = values['secret-id'] ?? connection.CLOUDOPS_KEY_SECRET_ID;
  if (!secretId) throw new UsageError('give --secret-id or set CLOUDOPS_KEY_SECRET_ID');
  const config = readRotationConfig(io.env);
  const logger = cliLogger(io.env, { command: 'keys rotate' });
  const secrets = secretsManagerClientFromEnv(io.env);
  const deps = rotationDeps(connection, { secrets, config, logger });
  const progress = (text: string) => {
    if (!values.json) io.out(text);
  };
  try {
    let token: string;
    if (via === 'secrets-manager') {
      token = randomUUID();
      progress(`RotateSecret ${secretId} (token ${token})`);
      await secrets
        .send(
          new RotateSecretCommand({
            SecretId: secretId,
            ClientRequestToken: token,
            RotateImmediately: true,
          }),
          { abortSignal: signal },
        )
        .catch((error: unknown) => {
          throw rotateSecretFailure(error, secretId, io.env.AWS_ENDPOINT_URL_SECRETS_MANAGER);
        });
      await waitForRotation(deps, secretId, token, { waitMs, signal, progress });
    } else {
      // Ctrl-C stops before the next step; the next run resumes this rotation by its token.
      token = await rotateLocally(deps, secretId, randomUUID, (step) => {
        signal.throwIfAborted();
        progress(`  ${step}`);
      });
    }
    const result = { secretId, versionId: token, ...(await outcome(deps, secretId)) };
    if (values.json) io.out(JSON.stringify(result));
    else {
      io.out(`rotated ${secretId}`);
      io.out(
        `  new key      …${result.current.keySuffix} expires ${result.current.expireAt ?? 'never'}`,
      );
      if (result.previous) {
        io.out(
          `  previous key …${result.previous.keySuffix} expires ${result.previous.expireAt ?? 'never'} (grace)`,
        );
      }
    }
    return 0;
  } finally {
    secrets.destroy();
  }
}

/** Follows the version RotateSecret named until it is AWSCURRENT; else a failure naming what to do. */
async function waitForRotation(
  deps: RotationDeps,
  secretId: string,
  token: string,
  options: { waitMs: number; signal: AbortSignal; progress: (text: string) => void },
): Promise<void> {
  options.progress(`  following the rotation (up to ${formatDuration(options.waitMs)})`);
  const versions = new SecretVersions(deps.secrets, secretId);
  const followed = await followRotation(versions, token, {
    deadlineMs: options.waitMs,
    signal: options.signal,
  });
  if (followed.finished) return;
  const stages = followed.stages?.length ? followed.stages.join(', ') : 'no staging label';
  throw new CliFailure(
    `rotation of ${secretId} did not finish within ${formatDuration(options.waitMs)}: version ` +
      `${token} holds ${stages}, not AWSCURRENT. The rotation function's logs say why (the ` +
      'rotate-key function in CloudWatch Logs); Secrets Manager refuses a new RotateSecret until this ' +
      'one finishes or its AWSPENDING label is removed',
  );
}

/** RotateSecret refused: say where, and that `--via local` needs no rotation function. */
function rotateSecretFailure(error: unknown, secretId: string, endpoint: string | undefined) {
  if (!(error instanceof Error) || error.name === 'AbortError') return error;
  const where = endpoint ? `Secrets Manager at ${endpoint}` : 'AWS Secrets Manager';
  const hint = /previous rotation isn't complete/i.test(error.message)
    ? 'a rotation of this secret is still running, or failed and left its AWSPENDING version: ' +
      "--via local resumes it (the rotation function's logs say why it failed)"
    : error.name === 'InvalidRequestException'
      ? 'the secret needs a rotation function (the stack deploys one), or run with --via local'
      : 'check the secret id, AWS_REGION and your AWS credentials';
  return new CliFailure(
    `RotateSecret ${secretId}: ${where} answered ${error.name}: ${error.message.split('\n')[0]}; ${hint}`,
    { cause: error },
  );
}

async function readStage(
  secrets: SecretsManagerClient,
  secretId: string,
  stage: string,
): Promise<ManagementKeySecret | undefined> {
  const out = await secrets
    .send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: stage }))
    .catch((error: unknown) => {
      if (stage !== 'AWSCURRENT') return undefined;
      throw error;
    });
  return out
    ? parseSecret(`${secretId} (${stage})`, out.SecretString, managementKeySecret)
    : undefined;
}

/**
 * The new and the previous key with their expiry dates as the service has them, read with the
 * key that manages keys (the admin secret's, else the new one). A key that may not list keys
 * (403) takes the dates the secret values carry: the summary never needs a role the key lacks.
 */
async function outcome(
  deps: RotationDeps,
  secretId: string,
): Promise<{ current: KeyView; previous: KeyView | null; expirySource: string }> {
  const current = await readStage(deps.secrets, secretId, 'AWSCURRENT');
  if (!current) throw new CloudOpsError(`secret ${secretId} has no AWSCURRENT value`);
  const previous = await readStage(deps.secrets, secretId, 'AWSPREVIOUS');
  const fromValue = (secret: ManagementKeySecret): KeyView => ({
    keySuffix: keySuffixOf(secret.keyId),
    expireAt: secret.expireAt,
  });
  const records = await listKeysAsAdmin(deps, secretId, current).catch((error: unknown) => {
    if (isForbidden(error)) return undefined;
    throw error;
  });
  const view = (secret: ManagementKeySecret): KeyView => ({
    ...fromValue(secret),
    expireAt: findKeyRecord(records ?? [], secret)?.expireAt ?? secret.expireAt,
  });
  return {
    current: view(current),
    previous: previous ? view(previous) : null,
    expirySource: records ? 'key-record' : 'secret-value',
  };
}
