/**
 * The key sentinel's function entry (functions/rotate-key/sentinel.ts calls it): once a day it
 * audits every key of the organization and our key secrets, and tells each new finding once
 * through the lib/watch notifiers, reminds by policy and tells once when a finding is gone.
 *
 * It reads one key secret value, its own key's (to list keys and activities); what the other
 * key secrets hold it reads from their tags (DescribeSecret). Without its own key (not seeded
 * yet, or refused) it audits those tags alone.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { ManagementConnection } from '../api/management/connection';
import {
  activityOperations,
  keyReadOperations,
  type ActivityOperations,
  type KeyReadOperations,
} from '../api/management/keys';
import { clientSettings, createManagement } from '../clients';
import { NotConfiguredError, readConnectionEnv, readEnv, unreadVariables } from '../config';
import { secretsManagerCredentials } from '../credentials';
import { CloudOpsError, ConfigError } from '../errors';
import { createLogger, type Logger } from '../log';
import { managementAuth } from '../schemas';
import { DynamoRecordStore } from '../watch/dynamo-store';
import { configuredOf, createNotifiers } from '../watch/notifiers/set';
import type { NotifierClients } from '../watch/notifiers/types';
import { WatchRun } from '../watch/run';
import { WATCH_TABLE_VARIABLE } from '../watch/table-setting';
import { recordIo } from '../watch/store';
import { KEY_NOTICES, type KeyNotice } from '../watch/subjects/key';
import { DEFAULT_AUDIT_POLICY, type AuditPolicy, type KeyFinding } from './audit';
import { SENTINEL_NOTIFIERS, sentinelEnv, WATCH_PREFIX } from './sentinel-env';
import {
  auditKeyFindings,
  describeKeySecrets,
  TAGS_ONLY,
  type AuditApi,
  type KeyFindingsReport,
} from './inventory';
import { auditRecord, decideFindingNotices, type ReminderPolicy } from './sentinel';
import { UNIT_MS } from '../duration';

/** The sentinel's env; a watch variable it does not read is an error, not silently ignored. */
function readSentinelEnv(env: Record<string, string | undefined> | undefined) {
  const unread = unreadVariables(sentinelEnv, WATCH_PREFIX, env);
  if (unread.length > 0)
    throw new ConfigError(
      `invalid configuration: ${unread.join(', ')}: the key sentinel notifies through ${SENTINEL_NOTIFIERS.map((n) => n.name).join(', ')} only, and reminds by CLOUDOPS_KEY_AUDIT_REMINDER_DAYS (no watchdog reminder or flap setting)`,
    );
  return readEnv(sentinelEnv, env);
}

/** What the audit looks for, and when an open finding is told again. */
function policiesOf(env: ReturnType<typeof readSentinelEnv>) {
  const policy: AuditPolicy = {
    ...DEFAULT_AUDIT_POLICY,
    unusedDays: env.CLOUDOPS_KEY_AUDIT_UNUSED_DAYS,
    rotationWarnDays: env.CLOUDOPS_KEY_EXPIRY_WARN_DAYS,
    namePrefix: env.CLOUDOPS_KEY_NAME_PREFIX,
  };
  const every = env.CLOUDOPS_KEY_AUDIT_REMINDER_DAYS * UNIT_MS.d;
  const reminders: ReminderPolicy = { reminderMs: { high: every, medium: every } };
  return { policy, reminders };
}

export interface SentinelEntryOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  /** Describes the key secrets, reads the sentinel's own key and the notifiers' secrets. */
  secretsManager?: SecretsManagerClient;
  /** The notifiers' AWS clients (SNS, EventBridge). */
  notify?: Omit<NotifierClients, 'secretsManager'>;
  /** The client of the table the open findings are kept in (CLOUDOPS_WATCHDOG_TABLE). */
  dynamo?: DynamoDBClient;
  /** Epoch ms. @default Date.now */
  now?: () => number;
  logger?: Logger;
}

/** What one run found and told (never key material). */
export interface SentinelReport {
  at: string;
  findings: KeyFinding[];
  told: Pick<KeyNotice, 'kind' | 'dedupKey' | 'level' | 'message'>[];
  warnings: string[];
}

/** The audit lists keys and activities, nothing else. */
function sentinelOperations(
  connection: ManagementConnection,
): KeyReadOperations & ActivityOperations {
  return { ...keyReadOperations(connection), ...activityOperations(connection) };
}

/** The sentinel's record in the watch store: one per table (one stack). */
const SCOPE = 'keys#audit';
const RECORD_ID = 'findings';

export function sentinelEntry(options: SentinelEntryOptions = {}) {
  const connection = readConnectionEnv(options.env);
  const env = readSentinelEnv(options.env);
  const secretIds = env.CLOUDOPS_KEY_SENTINEL_SECRET_IDS ?? [];
  if (secretIds.length === 0)
    throw new ConfigError('missing configuration: set CLOUDOPS_KEY_SENTINEL_SECRET_IDS');
  const tableName = env[WATCH_TABLE_VARIABLE];
  if (!tableName)
    throw new ConfigError(
      'missing configuration: set CLOUDOPS_WATCHDOG_TABLE (where the open findings are kept)',
    );
  const store = new DynamoRecordStore({
    client: options.dynamo ?? new DynamoDBClient({}),
    tableName,
  });
  const logger =
    options.logger ??
    createLogger({ level: connection.CLOUDOPS_LOG_LEVEL, fields: { function: 'key-sentinel' } });
  const secrets = options.secretsManager ?? new SecretsManagerClient({});
  const notifiers = createNotifiers(configuredOf(SENTINEL_NOTIFIERS, env, KEY_NOTICES.render), {
    ...options.notify,
    secretsManager: secrets,
  });
  const now = options.now ?? Date.now;
  const { policy, reminders } = policiesOf(env);
  const ownKey = env.CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID;
  const management =
    ownKey && connection.CLOUDOPS_API_URL
      ? createManagement(
          clientSettings(
            connection,
            {
              management: secretsManagerCredentials({
                client: secrets,
                secretId: ownKey,
                // What it authenticates with; the rotator reads (and checks) the rest.
                schema: managementAuth,
              }),
            },
            logger,
          ),
          sentinelOperations,
        )
      : undefined;

  let toldNotConfigured = false;

  /** The audit with the sentinel's own key; with our secrets' tags alone when it has none that works. */
  async function audit(): Promise<KeyFindingsReport> {
    const secretsNow = await describeKeySecrets(secrets, secretIds);
    const at = now();
    const api: AuditApi | undefined = management;
    const tagsAlone = async (warning?: string) => {
      const report = await auditKeyFindings({
        api: undefined,
        secrets: secretsNow,
        now: at,
        policy,
      });
      return { ...report, warnings: warning ? [warning, ...report.warnings] : report.warnings };
    };
    if (!api)
      return tagsAlone(`the sentinel has no key of its own to list keys with: ${TAGS_ONLY}`);
    try {
      const refusedKeyFallback = "the sentinel's own key";
      return await auditKeyFindings({
        api,
        secrets: secretsNow,
        now: at,
        policy,
        refusedKeyFallback,
      });
    } catch (error) {
      if (!(error instanceof NotConfiguredError)) throw error;
      // A fresh deployment: one line per instance, as every function says it (not a warning).
      if (!toldNotConfigured)
        logger.info(`not configured yet: the sentinel's own key; ${TAGS_ONLY}`);
      toldNotConfigured = true;
      return tagsAlone();
    }
  }

  /** Audit, then tell what changed; fails when a notice could not be delivered (it stays pending). */
  return async function auditKeys(): Promise<SentinelReport> {
    const report = await audit();
    for (const warning of report.warnings) logger.warn(warning);
    const io = recordIo(store, auditRecord, SCOPE, RECORD_ID);
    const previous = await io.reload();
    const at = Date.parse(report.at);
    const coverage = { keys: report.keysListed };
    const { next, notices } = decideFindingNotices(
      previous,
      report.findings,
      coverage,
      at,
      reminders,
    );
    const run = new WatchRun<string, KeyNotice>({ notifiers, now, logger });
    const claim = await run.claim({ previous, next, notices, io, where: 'key audit', at });
    if (claim) run.deliver([claim]);
    await run.finish();
    if (run.failures.length > 0)
      throw new CloudOpsError(
        `key audit notice not delivered (kept for the next run): ${run.failures
          .map((f) => (f.notifier ? `${f.notifier}: ${f.message}` : f.message))
          .join('; ')}`,
      );
    return {
      at: report.at,
      findings: report.findings,
      told: run.claimed.map(({ kind, dedupKey, level, message }) => ({
        kind,
        dedupKey,
        level,
        message,
      })),
      warnings: report.warnings,
    };
  };
}
