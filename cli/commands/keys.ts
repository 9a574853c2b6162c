import { randomUUID } from 'node:crypto';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetSecretValueCommand, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { readConnectionEnv } from '../../lib/config';
import { parseSecret, staticCredentials } from '../../lib/credentials';
import { CloudOpsError } from '../../lib/errors';
import {
  findKeyRecord,
  readRotationConfig,
  rotateLocally,
  rotationDeps,
  type RotationDeps,
} from '../../lib/keys';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import { expectSubcommand, formatHelp, parseCommand, UsageError, type CommandSpec } from '../args';
import { cliLogger, secretsManagerClientFromEnv } from '../connect';
import { CliFailure } from '../failure';
import type { CommandHelp } from '../help';
import type { Command } from '../io';

const spec = {
  usage: 'cloudops keys rotate [--secret-id ID] [--via local|secrets-manager] [--json]',
  summary:
    'Rotate the management API key held in a Secrets Manager secret.\n' +
    '--via local (default) runs the four rotation steps here, exactly as the rotation function does\n' +
    '(resuming an unfinished rotation with its token); --via secrets-manager calls RotateSecret and\n' +
    'lets the deployed function (or the sandbox) run them.\n' +
    'Env: CLOUDOPS_API_URL, CLOUDOPS_KEY_SECRET_ID, AWS_ENDPOINT_URL_SECRETS_MANAGER, AWS_REGION,\n' +
    'CLOUDOPS_KEY_LIFETIME, CLOUDOPS_KEY_GRACE_PERIOD, CLOUDOPS_KEY_NAME_PREFIX,\n' +
    'CLOUDOPS_ROTATION_ADMIN_SECRET_ID, CLOUDOPS_ROTATION_TEST_CALL.',
  options: {
    'secret-id': { type: 'string' },
    via: { type: 'string' },
    json: { type: 'boolean' },
  },
  help: {
    'secret-id': 'secret holding the key (default CLOUDOPS_KEY_SECRET_ID)',
    via: 'local (default) or secrets-manager',
    json: 'print the result as one JSON object',
  },
  positionals: 1,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

const secretsClient = secretsManagerClientFromEnv;

interface KeyView {
  keySuffix: string;
  expireAt: string | null;
}

export const keysHelp: CommandHelp = { subcommands: { rotate: spec } };

export const keysCommand: Command = {
  name: 'keys',
  summary: 'rotate the management API key in Secrets Manager',
  async run(argv, io, signal) {
    const { values, positionals } = parseCommand(spec, argv);
    if (values.help) {
      io.out(formatHelp(spec));
      return 0;
    }
    expectSubcommand(positionals, 'rotate');
    const via = values.via ?? 'local';
    if (via !== 'local' && via !== 'secrets-manager') {
      throw new UsageError(`--via expects local or secrets-manager, got "${via}"`);
    }
    const connection = readConnectionEnv(io.env, via === 'local' ? ['CLOUDOPS_API_URL'] : []);
    const secretId = values['secret-id'] ?? connection.CLOUDOPS_KEY_SECRET_ID;
    if (!secretId) throw new UsageError('give --secret-id or set CLOUDOPS_KEY_SECRET_ID');
    const config = readRotationConfig(io.env);
    const logger = cliLogger(io.env, { command: 'keys rotate' });
    const secrets = secretsClient(io.env);
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
      } else {
        // Ctrl-C stops before the next step; the next run resumes this rotation by its token.
        token = await rotateLocally(deps, secretId, randomUUID, (step) => {
          signal.throwIfAborted();
          progress(`  ${step}`);
        });
      }
      const current = await readStage(secrets, secretId, 'AWSCURRENT');
      if (!current) throw new CloudOpsError(`secret ${secretId} has no AWSCURRENT value`);
      const previous = await readStage(secrets, secretId, 'AWSPREVIOUS');
      const keys = connection.CLOUDOPS_API_URL
        ? await describeKeys(deps, current, previous)
        : undefined;
      const result = {
        secretId,
        versionId: token,
        current: keys?.current ?? {
          keySuffix: current.keyId.slice(-4),
          expireAt: current.expireAt,
        },
        previous:
          keys?.previous ??
          (previous ? { keySuffix: previous.keyId.slice(-4), expireAt: previous.expireAt } : null),
      };
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
  },
};

/** RotateSecret refused: say where, and that `--via local` needs no rotation function. */
function rotateSecretFailure(error: unknown, secretId: string, endpoint: string | undefined) {
  if (!(error instanceof Error) || error.name === 'AbortError') return error;
  const where = endpoint ? `Secrets Manager at ${endpoint}` : 'AWS Secrets Manager';
  const hint =
    error.name === 'InvalidRequestException'
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

/** The expiry dates as the service has them (read with the new key). */
async function describeKeys(
  deps: RotationDeps,
  current: ManagementKeySecret | undefined,
  previous: ManagementKeySecret | undefined,
): Promise<{ current: KeyView; previous: KeyView | null } | undefined> {
  if (!current) return undefined;
  const client = deps.connect(staticCredentials('AWSCURRENT', current, managementKeySecret));
  try {
    const records = await client.listKeys();
    const view = (secret: ManagementKeySecret): KeyView => {
      const record = findKeyRecord(records, secret);
      return { keySuffix: secret.keyId.slice(-4), expireAt: record?.expireAt ?? secret.expireAt };
    };
    return { current: view(current), previous: previous ? view(previous) : null };
  } finally {
    client.close();
  }
}
