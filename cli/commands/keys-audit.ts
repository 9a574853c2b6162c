/** `cloudops keys list` and `cloudops keys audit`: thin users of lib/keys' audit. */
import { readConnectionEnv } from '../../lib/config';
import {
  atOrAbove,
  DEFAULT_AUDIT_POLICY,
  findKeySecrets,
  readRotationConfig,
  renderAuditMarkdown,
  renderAuditText,
  renderKeyList,
  runKeyAudit,
  type AuditPolicy,
  type KeyAuditReport,
  type ManagedSecret,
} from '../../lib/keys';
import { DAY_COUNT, intFlag, parseCommand, UsageError } from '../args';
import { connectFromEnv, secretsManagerClientFromEnv } from '../connect';
import { EXIT } from '../exit';
import type { CliIO } from '../io';
import { severityFlag } from './keys-flags';
import { auditSpec, listSpec } from './keys-help';

/** Whether this env reaches Secrets Manager at all (else key names are all there is). */
const usesSecretsManager = (env: CliIO['env']) =>
  Boolean(
    env.AWS_ENDPOINT_URL_SECRETS_MANAGER ||
    env.CLOUDOPS_KEY_SECRET_ID ||
    env.AWS_REGION ||
    env.AWS_PROFILE ||
    env.AWS_ACCESS_KEY_ID,
  );

/**
 * Our key secrets (by their key tags, plus CLOUDOPS_KEY_SECRET_ID). Not being allowed to list
 * them leaves the audit to key names, with a warning: it never stops the audit.
 */
export async function ourKeySecrets(io: CliIO, warnings: string[]): Promise<ManagedSecret[]> {
  if (!usesSecretsManager(io.env)) {
    warnings.push(
      'no AWS settings: which secret rotates a key is read from key names only (set AWS_REGION)',
    );
    return [];
  }
  const client = secretsManagerClientFromEnv(io.env);
  try {
    const also = io.env.CLOUDOPS_KEY_SECRET_ID ? [io.env.CLOUDOPS_KEY_SECRET_ID] : [];
    return await findKeySecrets(client, also);
  } catch (error) {
    const reason = error instanceof Error ? error.name : String(error);
    warnings.push(
      `our key secrets could not be listed (${reason}): which secret rotates a key is read from key names only`,
    );
    return [];
  } finally {
    client.destroy();
  }
}

/** Reads everything the audit needs (keys, activities, our secrets) and audits it. */
async function auditFromEnv(
  io: CliIO,
  overrides: Partial<AuditPolicy> = {},
): Promise<KeyAuditReport> {
  readConnectionEnv(io.env, ['CLOUDOPS_API_URL']);
  const rotation = readRotationConfig(io.env);
  const policy: AuditPolicy = {
    ...DEFAULT_AUDIT_POLICY,
    rotationWarnDays: rotation.warnDays,
    namePrefix: rotation.namePrefix,
    ...overrides,
  };
  const warnings: string[] = [];
  const secrets = await ourKeySecrets(io, warnings);
  const connection = connectFromEnv(io.env);
  try {
    const report = await runKeyAudit({
      api: connection.clients.requireManagement(),
      secrets,
      now: Date.now(),
      policy,
    });
    return { ...report, warnings: [...warnings, ...report.warnings] };
  } finally {
    connection.close();
  }
}

export async function runKeysList(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommand(listSpec, argv);
  const report = await auditFromEnv(io);
  if (values.json)
    io.out(JSON.stringify({ at: report.at, keys: report.keys, warnings: report.warnings }));
  else io.out(renderKeyList(report.keys, report.warnings));
  return EXIT.ok;
}

export async function runKeysAudit(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommand(auditSpec, argv);
  const format = values.json ? 'json' : (values.format ?? 'text');
  if (format !== 'text' && format !== 'markdown' && format !== 'json')
    throw new UsageError(`--format expects text, markdown or json, got "${format}"`);
  const failOn = severityFlag('fail-on', values['fail-on']);
  const report = await auditFromEnv(io, {
    unusedDays: intFlag(
      'unused-days',
      values['unused-days'],
      DEFAULT_AUDIT_POLICY.unusedDays,
      DAY_COUNT,
    ),
    expiringDays: intFlag(
      'expiring-days',
      values['expiring-days'],
      DEFAULT_AUDIT_POLICY.expiringDays,
      DAY_COUNT,
    ),
  });
  if (format === 'json') io.out(JSON.stringify(report));
  else io.out(format === 'markdown' ? renderAuditMarkdown(report) : renderAuditText(report));
  const gated = failOn && report.findings.some((f) => atOrAbove(f.severity, failOn));
  return gated ? EXIT.changes : EXIT.ok;
}
