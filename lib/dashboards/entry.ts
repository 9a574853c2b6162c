/**
 * The sync-dashboards function's wiring and its run (functions/sync-dashboards/handler.ts adds
 * middy and the API clients). A run classifies the trigger, reads the files from S3, and runs
 * the dashboards orchestration (sync.ts) for the function's service: it applies (S3 change,
 * the schedule in repair mode, or its own continuation) or only reports (the schedule in report
 * mode, telling drift through the watchdog's notifiers), then sends a `Dashboard Synced` event
 * per dashboard whose tiles or alerts changed. With a manifest (CLOUDOPS_DASHBOARDS_MANIFEST_KEY)
 * it reads only changed files and keeps what it saw in sync for the next run. At its deadline it
 * stops between two writes, answers with a summary saying how far it got, and asks for its next
 * round (continuation.ts). In open-source mode only the observability token is read.
 * Webhook and saved-search files are applied with the dashboards; a webhook's values come from
 * Secrets Manager references, read through the function's own client once per run.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { readObservabilityHome, type ObservabilityHome } from '../alerts/config';
import { TileAlertLedger } from '../alerts/ledger';
import { DynamoVersionStore } from '../alerts/versions-dynamo';
import type { ObservabilityBackend } from '../api/observability-backend';
import { CloudOpsError } from '../errors';
import { createLogger, type Logger } from '../log';
import type { NotifierClients } from '../watch/notifiers/types';
import { watchFromEnv } from '../watch/settings';
import { DASHBOARDS_NOTICES } from '../watch/subjects/dashboards';
import { readSyncDashboardsSettings, type SyncDashboardsSettings } from './config';
import { nextRound, sendContinuation, type Progress } from './continuation';
import { noticeDrift, type DriftNoticeDeps } from './drift-notice';
import { DEFAULT_OWNER, DEFAULT_OWNER_WARNING } from './ownership';
import {
  applyResults,
  plannedResults,
  applySummary,
  planSummary,
  progressOf,
  type StoppedRun,
  type SyncFunctionSummary,
} from './function-run';
import { manifestChanged, manifestContext, usableManifest, type Manifest } from './manifest';
import { s3ManifestStore, type ManifestStore } from './manifest-store';
import type { Plan } from './plan';
import { publishEvents } from './publish';
import { s3Source } from './s3-source';
import { syncStreamed, type SyncOutcome } from './sync';
import { classifyTrigger, normalizePrefix, type Trigger } from './trigger';

export interface SyncEntryOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  s3?: S3Client;
  eventBridge?: EventBridgeClient;
  /** Reads webhook files' `{ secret }` values (and the drift notifiers' secrets). */
  secretsManager?: SecretsManagerClient;
  /** Client for provision-alerts' version table and the drift record (watchdog table). */
  dynamo?: DynamoDBClient;
  /** The drift notifiers' AWS clients (SNS, EventBridge). */
  notify?: Omit<NotifierClients, 'secretsManager'>;
  now?: () => Date;
}

export type { SyncFunctionSummary };

export interface SyncEntry {
  readonly home: ObservabilityHome;
  readonly logger: Logger;
  /** One invocation; `signal` aborts before the Lambda's timeout (writes stop in between). */
  run(
    event: unknown,
    io: { backend: ObservabilityBackend; signal?: AbortSignal },
  ): Promise<SyncFunctionSummary>;
}

export function syncDashboardsEntry(options: SyncEntryOptions = {}): SyncEntry {
  const settings = readSyncDashboardsSettings(options.env);
  const home = readObservabilityHome(options.env);
  const logger = createLogger({
    level: home.connection.CLOUDOPS_LOG_LEVEL,
    fields: { function: 'sync-dashboards' },
  });
  const s3 = options.s3 ?? new S3Client({});
  let secretsClient: SecretsManagerClient | undefined;
  const deps: RunDeps = {
    settings,
    s3,
    eventBridge: options.eventBridge ?? new EventBridgeClient({}),
    service: home.serviceId,
    logger,
    now: options.now ?? (() => new Date()),
    // The same store and key scope as provision-alerts, read to skip the alert list.
    ledger: settings.alertVersionTable
      ? new TileAlertLedger(
          new DynamoVersionStore({
            client: options.dynamo ?? new DynamoDBClient({}),
            tableName: settings.alertVersionTable,
          }),
          home.scope,
        )
      : undefined,
    drift: driftWiring(options, settings.scheduleMode),
    // Made only when a webhook file references a secret (most runs have none).
    secrets: () => (secretsClient ??= options.secretsManager ?? new SecretsManagerClient({})),
    manifest: settings.manifestKey
      ? {
          store: s3ManifestStore(s3, settings.bucket, settings.manifestKey, logger),
          // What the plan depends on besides files and dashboards: another context starts afresh.
          context: manifestContext({
            owner: settings.owner,
            target: home.scope,
            vars: settings.vars,
          }),
        }
      : undefined,
  };
  return { home, logger, run: (event, io) => runSync(event, io, deps) };
}

interface RunDeps {
  settings: SyncDashboardsSettings;
  s3: Pick<S3Client, 'send'>;
  eventBridge: Pick<EventBridgeClient, 'send'>;
  /** The service the backend targets (managed mode): files listing other services are skipped. */
  service: string | undefined;
  logger: Logger;
  now: () => Date;
  ledger: TileAlertLedger | undefined;
  /** Report mode: drift is told through the watchdog's notifiers; without them only logged. */
  drift: Omit<DriftNoticeDeps, 'logger' | 'signal'> | undefined;
  /** Where the manifest is kept, and the context it must have been made in. */
  manifest: { store: ManifestStore; context: string } | undefined;
  /** The function's Secrets Manager client, for webhook files' secret references. */
  secrets: () => SecretsManagerClient;
}

async function runSync(
  event: unknown,
  io: { backend: ObservabilityBackend; signal?: AbortSignal },
  deps: RunDeps,
): Promise<SyncFunctionSummary> {
  const { settings, logger } = deps;
  const trigger = classifyTrigger(event, settings.bucket, settings.prefix);
  if (trigger.kind === 'ignored') {
    logger.info('sync skipped', { reason: trigger.reason });
    return { trigger: trigger.kind, mode: 'skipped', results: [], eventsSent: 0 };
  }
  const mode: 'plan' | 'apply' =
    trigger.kind === 'schedule' && settings.scheduleMode === 'report' ? 'plan' : 'apply';
  if (settings.prune && settings.owner === DEFAULT_OWNER) logger.warn(DEFAULT_OWNER_WARNING);
  const source = s3Source(deps.s3, settings.bucket, settings.prefix);
  const previous = await deps.manifest?.store.read();
  let outcome: SyncOutcome;
  try {
    outcome = await syncStreamed({
      source,
      backend: io.backend,
      mode,
      vars: settings.vars,
      ...(deps.service !== undefined ? { service: deps.service } : {}),
      prune: settings.prune,
      allowDeleteAll: settings.allowDeleteAll,
      adopt: settings.adopt,
      owner: settings.owner,
      ...(io.signal ? { signal: io.signal } : {}),
      logger,
      secretsClient: deps.secrets,
      allowedSecrets: settings.webhookSecrets,
      now: deps.now(),
      ...(deps.ledger ? { ledger: deps.ledger } : {}),
      // Only what changed: an unchanged dashboard's alerts need no provisioning.
      events: 'changed',
      ...(deps.manifest
        ? {
            manifest: {
              previous: usableManifest(previous, deps.manifest.context),
              context: deps.manifest.context,
            },
          }
        : {}),
    });
  } catch (error) {
    // Out of time before the first write: nothing to undo, the next run starts over.
    if (io.signal?.aborted) return stoppedReading(trigger, mode, logger);
    // Bad files, an unreadable secret, a webhook still in use: refused before any write.
    logger.error('dashboard sync failed', {
      error: (error as Error).message,
    });
    throw error;
  }
  const summary = planSummary(trigger, mode, outcome);
  logger.info('dashboard plan', {
    trigger: trigger.kind,
    summary: summary.summaryLine,
    counts: outcome.plan.counts,
    planned: summary.planned,
    pending: outcome.plan.pending,
    notes: outcome.plan.notes,
    files: outcome.files,
    s3ListPages: source.listPages(),
  });
  if (!outcome.apply || !outcome.events) {
    const driftNotices = await reportDrift(outcome.plan, trigger, deps, io.signal);
    await keepManifest(deps, previous, outcome);
    return {
      ...(driftNotices !== undefined ? { driftNotices } : {}),
      ...summary,
      results: plannedResults(outcome.plan),
      eventsSent: 0,
    };
  }
  const eventsSent = await publishEvents(deps.eventBridge, settings.eventBusName, outcome.events);
  await keepManifest(deps, previous, outcome);
  const stopped = outcome.apply.interrupted
    ? await continueLater(progressOf(outcome.apply, trigger), deps)
    : undefined;
  const results = applyResults(outcome.apply);
  const applied = applySummary(outcome.apply, outcome.files?.inSync ?? 0);
  logger.info('dashboard apply', { summary: applied.summaryLine, applied: applied.applied });
  const bad = results.filter((r) => r.status === 'aborted' || r.status === 'failed');
  if (bad.length > 0) {
    // Events for the good ones are out; failing the invocation makes the problem visible (and retried).
    throw new CloudOpsError(
      `${bad.length} dashboard(s) not applied: ${bad.map((r) => `"${r.name}": ${r.message}`).join('; ')}`,
    );
  }
  return { ...summary, ...applied, results, eventsSent, ...(stopped ? { stopped } : {}) };
}

/** The deadline came before the first write: a summary instead of a failed invocation. */
function stoppedReading(
  trigger: Trigger,
  mode: 'plan' | 'apply',
  logger: Logger,
): SyncFunctionSummary {
  const round = trigger.kind === 'continuation' ? trigger.round : 1;
  const stopped = { phase: 'reading' as const, round, applied: 0, pending: 0, continued: false };
  logger.warn('dashboard sync stopped at its deadline before writing anything', { ...stopped });
  return { trigger: trigger.kind, mode, results: [], eventsSent: 0, stopped };
}

/** Stopped between two writes: says how far it got, and asks for its next round if it moved. */
async function continueLater(progress: Progress, deps: RunDeps): Promise<StoppedRun> {
  const next = nextRound(progress);
  let continued = false;
  if (next) {
    try {
      await sendContinuation(deps.eventBridge, deps.settings.eventBusName, next);
      continued = true;
    } catch (error) {
      deps.logger.warn('continuation not sent', { error: (error as Error).message });
    }
  }
  const stopped: StoppedRun = {
    phase: 'applying',
    round: progress.round,
    applied: progress.applied,
    pending: progress.pending,
    continued,
  };
  deps.logger.warn(
    continued
      ? 'dashboard sync stopped at its deadline; its next round goes on from here'
      : 'dashboard sync stopped at its deadline; the next scheduled run goes on from here',
    { ...stopped },
  );
  return stopped;
}

/** Writes the manifest when this run learnt something (a no-op writes nothing). */
async function keepManifest(
  deps: RunDeps,
  previous: Manifest | undefined,
  outcome: SyncOutcome,
): Promise<void> {
  if (!deps.manifest || !outcome.manifest) return;
  if (!manifestChanged(previous, outcome.manifest)) return;
  await deps.manifest.store.write(outcome.manifest);
}

/** Report mode: logs drift, and on the schedule tells it (the number of notices). */
async function reportDrift(
  plan: Plan,
  trigger: Trigger,
  deps: RunDeps,
  signal: AbortSignal | undefined,
): Promise<number | undefined> {
  const { logger, settings } = deps;
  if (plan.pending)
    logger.warn('dashboards drifted from their files (report-only: nothing applied)', {
      counts: plan.counts,
    });
  if (!deps.drift || trigger.kind !== 'schedule') return undefined;
  const told = await noticeDrift(
    plan,
    { owner: plan.owner, source: `s3://${settings.bucket}/${normalizePrefix(settings.prefix)}` },
    { ...deps.drift, logger, ...(signal ? { signal } : {}) },
  );
  for (const error of told.errors)
    logger.warn('drift notice not delivered; it stays pending for the next run', { error });
  return told.notifications.length;
}

/**
 * Report mode tells drift through lib/watch (its table, notifiers and policy from the watch
 * variables the stack sets); without a table or a notifier it only logs.
 */
function driftWiring(
  options: SyncEntryOptions,
  mode: 'repair' | 'report',
): RunDeps['drift'] | undefined {
  if (mode !== 'report') return undefined;
  const watch = watchFromEnv(options.env, DASHBOARDS_NOTICES.render, {
    ...options.notify,
    ...(options.secretsManager ? { secretsManager: options.secretsManager } : {}),
    dynamo: options.dynamo ?? new DynamoDBClient({}),
  });
  const now = options.now;
  return watch && { ...watch, ...(now ? { now: () => now().getTime() } : {}) };
}
