/**
 * One run of the sync-dashboards function: classify the trigger, read the files from S3,
 * validate all of them, plan, apply (S3 change, or schedule in repair mode) or only report
 * (schedule in report mode), then emit one `Dashboard Synced` event per dashboard whose tiles
 * or alerts changed.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { S3Client } from '@aws-sdk/client-s3';
import type { ObservabilityBackend } from '../api/observability-backend';
import { CloudOpsError } from '../errors';
import type { Logger } from '../log';
import type { ApplyStatus } from './apply';
import { dashboardSyncedEvents } from './events';
import type { DashboardAction } from './plan';
import { publishEvents } from './publish';
import { s3Source } from './s3-source';
import { syncDashboards } from './sync';
import { classifyTrigger, type Trigger } from './trigger';

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
  logger: Logger;
  now?: () => Date;
  signal?: AbortSignal;
}

export interface SyncFunctionSummary {
  trigger: Trigger['kind'];
  mode: 'apply' | 'plan' | 'skipped';
  counts?: Record<DashboardAction, number>;
  pending?: boolean;
  results: { key?: string; name: string; status: ApplyStatus | 'planned'; message?: string }[];
  eventsSent: number;
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
  const { plan, apply } = await syncDashboards({
    source: s3Source(deps.s3, settings.bucket, settings.prefix),
    backend: deps.backend,
    mode,
    vars: settings.vars,
    prune: settings.prune,
    adopt: settings.adopt,
    ...(settings.owner !== undefined ? { owner: settings.owner } : {}),
    signal: deps.signal,
    logger,
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
    return {
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
  const events = dashboardSyncedEvents(apply.results, (deps.now ?? (() => new Date()))(), {
    changedOnly: true,
  });
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
