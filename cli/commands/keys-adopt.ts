/** `cloudops keys adopt` and `cloudops keys revoke`: thin users of lib/keys. */
import { readFileSync } from 'node:fs';
import { readConnectionEnv } from '../../lib/config';
import { ConfigError } from '../../lib/errors';
import { adoptKey, planRevoke, readRotationConfig, revokeKey, rotationDeps } from '../../lib/keys';
import { registerSecret } from '../../lib/redact';
import { DAY_COUNT, intFlag, parseCommand, UsageError } from '../args';
import { cliLogger, connectFromEnv, secretsManagerClientFromEnv } from '../connect';
import { EXIT } from '../exit';
import { noteStdinFromTerminal, type CliIO } from '../io';
import { ourKeySecrets } from './keys-audit';
import { durationFlag } from './keys-flags';
import { adoptSpec, revokeSpec } from './keys-help';
import { UNIT_MS } from '../../lib/duration';

/** The key secret from a file or stdin (`-`): never from a flag, which `ps` would show. */
async function readKeySecret(io: CliIO, file: string): Promise<string> {
  let text: string;
  if (file === '-') {
    noteStdinFromTerminal(io, 'the key secret', '--key-secret-file FILE');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new UsageError(`--key-secret-file ${file}: cannot be read (${code})`);
    }
  }
  const secret = text.trim();
  registerSecret(secret);
  if (secret === '' || /\s/.test(secret))
    throw new UsageError(
      `--key-secret-file ${file === '-' ? '- (stdin)' : file}: expected the key secret alone on one line`,
    );
  return secret;
}

export async function runKeysAdopt(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommand(adoptSpec, argv);
  const keyId = values['key-id'];
  const secretId = values['secret-id'];
  if (!keyId || !secretId) throw new UsageError('give --key-id and --secret-id');
  if (keyId.length < 4) throw new UsageError(`--key-id expects a key ID, got "${keyId}"`);
  const rotationDays = intFlag('rotation-days', values['rotation-days'], 30, DAY_COUNT);
  const config = readConnectionEnv(io.env, ['CLOUDOPS_API_URL']);
  const keySecret = await readKeySecret(io, values['key-secret-file'] ?? '-');
  const logger = cliLogger(io.env, { command: 'keys adopt' });
  const secrets = secretsManagerClientFromEnv(io.env);
  const connection = connectFromEnv(io.env);
  try {
    const organizationId =
      config.CLOUDOPS_ORGANIZATION_ID ??
      (await connection.credentials.management?.get())?.organizationId;
    if (!organizationId)
      throw new ConfigError(
        'missing configuration: set CLOUDOPS_ORGANIZATION_ID (the organization the key belongs to)',
      );
    const deps = rotationDeps(config, { secrets, config: readRotationConfig(io.env), logger });
    const result = await adoptKey(
      { secrets, connect: deps.connect, operator: connection.clients.management },
      {
        secretId,
        organizationId,
        keyId,
        keySecret,
        rotationFunctionArn: values['rotation-function'],
        rotationDays,
      },
    );
    if (values.json) io.out(JSON.stringify(result));
    else {
      io.out(
        `adopted key …${result.keySuffix} (record ${result.keyRecordId}) into ${result.secretId}`,
      );
      if (result.clearedPending)
        io.out(`  cleared the unfinished rotation ${result.clearedPending} (AWSPENDING)`);
      io.out(
        `  rotation ${result.rotation === 'turned-on' ? 'turned on' : 'already on'}; the next one replaces this key and cuts it to its grace`,
      );
    }
    return EXIT.ok;
  } finally {
    connection.close();
    secrets.destroy();
  }
}

export async function runKeysRevoke(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommand(revokeSpec, argv);
  const keyRecordId = positionals[1];
  if (!keyRecordId) throw new UsageError('give the record id of the key to revoke');
  const graceMs = durationFlag('grace', values.grace, 7 * UNIT_MS.d, true);
  readConnectionEnv(io.env, ['CLOUDOPS_API_URL']);
  const rotation = readRotationConfig(io.env);
  const warnings: string[] = [];
  const secrets = await ourKeySecrets(io, warnings);
  const connection = connectFromEnv(io.env);
  try {
    const api = connection.clients.requireManagement();
    const self = await connection.credentials.management?.get();
    const plan = planRevoke(
      { keyRecordId, graceMs, force: values.force === true },
      {
        records: await api.listKeys(),
        secrets,
        namePrefix: rotation.namePrefix,
        now: Date.now(),
        selfSuffix: self?.keyId.slice(-4),
      },
    );
    const said = await revokeKey(api, plan);
    for (const warning of warnings) io.err(`warning: ${warning}`);
    if (values.json)
      io.out(
        JSON.stringify({
          keyRecordId,
          action: plan.action,
          ...(plan.action === 'disable' ? { expireAt: plan.expireAt } : {}),
          message: said,
        }),
      );
    else io.out(said);
    return EXIT.ok;
  } finally {
    connection.close();
  }
}
