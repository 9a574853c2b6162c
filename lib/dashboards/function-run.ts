/**
 * One run of the sync-dashboards function: classify the trigger, read the files from S3,
 * validate all of them, plan, apply (S3 change, or schedule in repair mode) or only report
 * (schedule in report mode), then emit one `Dashboard Synced` event per dashboard whose tiles
 * or alerts changed.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import { desiredDigest, desiredFromEvent, versionOwner } from '../alerts/desired';
import { claimVersion, type VersionStore } from '../alerts/versions';
import type { ObservabilityBackend } from '../api/observability-backend';
import { parseEvent } from '../events/parse';
import { alertEvent, type DashboardSyncedEvent } from '../events/schemas';
import { CloudOpsError } from '../errors';
import type { Logger } from '../log';
import type { ApplyStatus, DashboardResult } from './apply';
import { noticeDrift, type DriftNoticeDeps } from './drift-notice';
import { dashboardSyncedEvents, plannedSyncedEvent } from './events';
import type { DashboardAction, DashboardChange, Plan } from './plan';
import { publishEvents } from './publish';
import { s3Source } from './s3-source';
import { syncDashboards } from './sync';
import { classifyTrigger, normalizePrefix, type Trigger } from './trigger';

export interface SyncFunctionSettings {
  bucket: string;
  prefix: string;
  /** On the schedule: `repair` applies drift away, `report` only logs the plan. */
  scheduleMode: 'repair' | 'report';
  prune: boolean;
  adopt: boolean;
  eventBusName: string;
  vars: Record<string, string>;
  /** The configuration's owner (the stack sets one per deployment); default `default`. */
  owner?: string;
}

export interface SyncFunctionDeps {
  settings: SyncFunctionSettings;
  s3: Pick<S3Client, 'send'>;
  eventBridge: Pick<EventBridgeClient, 'send'>;
  backend: ObservabilityBackend;
  /** The service `backend` targets (managed mode): files listing other services are skipped. */
  service?: string;
  logger: Logger;
  now?: () => Date;
  signal?: AbortSignal;
  /**
   * provision-alerts' version store (and its key scope, versionScope()): a dashboard whose
   * alerts that function last settled with the same declarations and tile ids needs no alert
   * list, so a no-op run costs one request. Without it every run with alerts lists them.
   * An alert edited or deleted by hand is then seen only when its declaration or tile changes.
   */
  alertVersions?: { store: VersionStore; scope: string };
  /**
   * Report mode: drift is told through the watchdog's notifiers (one notice per new drift, the
   * watchdog's reminders, a recovery notice). Without it, report mode only logs.
   */
  drift?: Omit<DriftNoticeDeps, 'logger' | 'signal'>;
}

export interface SyncFunctionSummary {
  trigger: Trigger['kind'];
  mode: 'apply' | 'plan' | 'skipped';
  counts?: Record<DashboardAction, number>;
  pending?: boolean;
  results: { key?: string; name: string; status: ApplyStatus | 'planned'; message?: string }[];
  eventsSent: number;
  /** Report mode with notifiers: the drift notices this run sent (or left pending). */
  driftNotices?: number;
}

export async function runSyncFunction(
  event: unknown,
  deps: SyncFunctionDeps,
): Promise<SyncFunctionSummary> {
  const { settings, logger } = deps;
  const trigger = classifyTrigger(event, settings.bucket, settings.prefix);
  if (trigger.kind === 'ignored') {
    logger.info('sync skipped', { reason: trigger.reason });
    return { trigger: trigger.kind, mode: 'skipped', results: [], eventsSent: 0 };
  }
  const mode = trigger.kind === 'schedule' && settings.scheduleMode === 'report' ? 'plan' : 'apply';
  const now = (deps.now ?? (() => new Date()))();
  // Dashboards whose alerts provision-alerts has not settled as declared (filled by the plan).
  const unsettled = new Set<string>();
  // Dashboards whose alert version this run claimed before writing their alerts itself.
  const claimed = new Set<string>();
  const alertVersions = deps.alertVersions;
  const { plan, apply } = await syncDashboards({
    source: s3Source(deps.s3, settings.bucket, settings.prefix),
    backend: deps.backend,
    mode,
    vars: settings.vars,
    ...(deps.service !== undefined ? { service: deps.service } : {}),
    prune: settings.prune,
    adopt: settings.adopt,
    ...(settings.owner !== undefined ? { owner: settings.owner } : {}),
    signal: deps.signal,
    logger,
    checkWebhookIds: 'written',
    ...(alertVersions
      ? {
          alertsSettled: settledBy(alertVersions, now, unsettled),
          beforeApply: (p: Plan) => claimAlertVersions(alertVersions, p, now, claimed),
        }
      : {}),
  });
  logger.info('dashboard plan', {
    trigger: trigger.kind,
    counts: plan.counts,
    pending: plan.pending,
    notes: plan.notes,
  });
  if (!apply) {
    if (plan.pending)
      logger.warn('dashboards drifted from their files (report-only: nothing applied)', {
        counts: plan.counts,
      });
    let driftNotices: number | undefined;
    if (deps.drift && trigger.kind === 'schedule') {
      const told = await noticeDrift(
        plan,
        {
          owner: plan.owner,
          source: `s3://${settings.bucket}/${normalizePrefix(settings.prefix)}`,
        },
        { ...deps.drift, logger, ...(deps.signal ? { signal: deps.signal } : {}) },
      );
      driftNotices = told.notifications.length;
      for (const error of told.errors)
        logger.warn('drift notice not delivered; it stays pending for the next run', { error });
    }
    return {
      ...(driftNotices !== undefined ? { driftNotices } : {}),
      trigger: trigger.kind,
      mode,
      counts: plan.counts,
      pending: plan.pending,
      results: plan.changes
        .filter((c) => c.action !== 'unchanged')
        .map((c) => ({ key: c.key, name: c.name, status: 'planned' })),
      eventsSent: 0,
    };
  }
  // Only what changed: an unchanged dashboard's alerts need no provisioning (a no-op drift run
  // then costs provision-alerts nothing).
  const events = dashboardSyncedEvents(apply.results, now, {
    changedOnly: true,
    alsoKeys: unsettled,
  });
  // Before the events go out, so provision-alerts finds them settled.
  if (alertVersions) await settleApplied(alertVersions, events, apply.results, claimed);
  const eventsSent = await publishEvents(deps.eventBridge, settings.eventBusName, events);
  const results = apply.results.map((r) => ({
    key: r.key,
    name: r.name,
    status: r.status,
    ...(r.message ? { message: r.message } : {}),
  }));
  const bad = results.filter((r) => r.status === 'aborted' || r.status === 'failed');
  if (bad.length > 0) {
    // Events for the good ones are out; failing the invocation makes the problem visible (and retried).
    throw new CloudOpsError(
      `${bad.length} dashboard(s) not applied: ${bad.map((r) => `"${r.name}": ${r.message}`).join('; ')}`,
    );
  }
  return {
    trigger: trigger.kind,
    mode,
    counts: plan.counts,
    pending: plan.pending,
    results,
    eventsSent,
  };
}

/**
 * True when every dashboard's would-be `Dashboard Synced` event asks for what provision-alerts
 * last applied completely (same digest, and no newer event claimed since): nothing to list.
 * The keys of the others go into `unsettled`.
 */
function settledBy(
  versions: { store: VersionStore; scope: string },
  now: Date,
  unsettled: Set<string>,
): (changes: readonly DashboardChange[]) => Promise<boolean> {
  return async (changes) => {
    const CONCURRENCY = 8;
    for (let i = 0; i < changes.length; i += CONCURRENCY) {
      await Promise.all(
        changes.slice(i, i + CONCURRENCY).map(async (change) => {
          const planned = plannedSyncedEvent(change, now);
          if (!planned) {
            unsettled.add(change.key!);
            return;
          }
          const { key, digest } = asProvisioned(versions.scope, planned);
          const [settled, newest] = await Promise.all([
            versions.store.settled?.(key),
            versions.store.get(key),
          ]);
          const same =
            settled !== undefined && settled.version === newest && settled.digest === digest;
          if (!same) unsettled.add(change.key!);
        }),
      );
    }
    return unsettled.size === 0;
  };
}

/** The version-store key and declaration digest provision-alerts uses for this event. */
function asProvisioned(
  scope: string,
  event: DashboardSyncedEvent,
): { key: string; digest: string } {
  // Parsed as provision-alerts parses it, so the digest is the one it records.
  const parsed = parseEvent(alertEvent, JSON.stringify(event), 'Dashboard Synced event');
  const owner = versionOwner(parsed);
  return {
    key: scope ? `${scope}#${owner}` : owner,
    digest: desiredDigest(desiredFromEvent(parsed)),
  };
}

/**
 * Before the sync writes a dashboard's alerts itself, it claims the event version in
 * provision-alerts' store, as that function does before its writes: an older event still
 * queued or in flight then stops instead of undoing them.
 */
async function claimAlertVersions(
  versions: { store: VersionStore; scope: string },
  plan: Plan,
  now: Date,
  claimed: Set<string>,
): Promise<void> {
  for (const c of plan.changes) {
    if (!c.key || c.alerts.length === 0) continue;
    const { key } = asProvisioned(versions.scope, keyOnlyEvent(c.key, now));
    const claim = await claimVersion(versions.store, key, now.toISOString());
    if (claim.status !== 'stale') claimed.add(c.key);
  }
}

/**
 * After the writes: a dashboard whose alerts this run claimed and applied completely is
 * recorded as settled with the declarations of its event, so provision-alerts skips that
 * event without listing (and later no-op runs need no alert list).
 */
async function settleApplied(
  versions: { store: VersionStore; scope: string },
  events: readonly DashboardSyncedEvent[],
  results: readonly DashboardResult[],
  claimed: ReadonlySet<string>,
): Promise<void> {
  for (const event of events) {
    const dashboardKey = event.detail.dashboardKey;
    if (!claimed.has(dashboardKey)) continue;
    const result = results.find((r) => r.key === dashboardKey);
    if (!result?.alertResults?.every((a) => a.status === 'done')) continue;
    const { key, digest } = asProvisioned(versions.scope, event);
    await versions.store.markSettled?.(key, { version: event.detail.syncedAt, digest });
  }
}

function keyOnlyEvent(dashboardKey: string, now: Date): DashboardSyncedEvent {
  const time = now.toISOString();
  return {
    source: 'cloudops',
    'detail-type': 'Dashboard Synced',
    time,
    detail: {
      dashboardKey,
      dashboardId: '-',
      name: '',
      sourceFile: '',
      syncedAt: time,
      tiles: [],
      alerts: [],
    },
  };
}
