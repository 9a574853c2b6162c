/**
 * Drift is heard, not only logged: in report mode the scheduled sync tells people when the
 * dashboards drift from their files (the plan in markdown), reminds while the drift lasts and
 * says when it is gone.
 *
 * The watchdog's machinery does it, so the rules are the same: the deployment's dashboards are
 * one watched record (state InSync or Drifted) that lib/pipes decide() moves (reminders after
 * its reminder interval, flap damping, recovery), stored and claimed in the watchdog's store
 * (of two overlapping runs one notifies), and delivered through the watchdog's notifiers with
 * its pending-delivery bookkeeping (a notifier that fails is retried on the next run).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log';
import type { Notifier } from '../notify/types';
import type { PipeNotification } from '../notify/notification';
import { claimRecord, Delivery, type Where } from '../pipes/claims';
import { decide, parsePolicy, type WatchdogPolicyInput } from '../pipes/decide';
import {
  boundPending,
  claimPending,
  deliveryLimitsSchema,
  dropUnknownNotifiers,
  newPending,
} from '../pipes/deliver';
import type { StateStore } from '../pipes/store';
import type { PipeRecord } from '../pipes/types';
import type { Plan } from './plan';
import { renderPlanMarkdown, summaryLine } from './render';

export const IN_SYNC = 'InSync';
export const DRIFTED = 'Drifted';
/** The record's organization: never a real organization id (those are UUIDs). */
export const DRIFT_ORGANIZATION = 'dashboards';
const DRIFT_RECORD = 'drift';
/** A run's hold on pending notices (a crashed run's are retaken after this). */
const LEASE_MS = 5 * 60_000;
/** The plan in a notice is cut here: it is stored with pending notices (DynamoDB: 400 KB an item). */
const MARKDOWN_CHARS = 16_000;

export interface DriftNoticeDeps {
  store: StateStore;
  notifiers: readonly Notifier[];
  /** The watchdog's reminder and flap settings (its state lists are replaced here). */
  policy?: WatchdogPolicyInput;
  logger: Logger;
  now?: () => number;
  signal?: AbortSignal;
}

export interface DriftNoticeResult {
  state: typeof IN_SYNC | typeof DRIFTED;
  /** Notices this run claimed (sent, or pending for the next run when a notifier failed). */
  notifications: PipeNotification[];
  /** Notifier failures (`notifier: message`); the notices stay pending. */
  errors: string[];
}

/**
 * Decides and delivers the drift notice of one plan. `owner` names the deployment, `source`
 * where the files are (shown in the notice).
 */
export async function noticeDrift(
  plan: Plan,
  where: { owner: string; source: string; service?: string },
  deps: DriftNoticeDeps,
): Promise<DriftNoticeResult> {
  const now = (deps.now ?? Date.now)();
  const runId = randomUUID();
  const policy = parsePolicy({
    ...deps.policy,
    // Drift is a warning while it lasts; nothing else is a state of this record.
    healthy: [IN_SYNC],
    degraded: [DRIFTED],
    transitional: [],
    failed: [],
    stopped: [],
    expectedStopped: [],
  });
  const ids = { organizationId: DRIFT_ORGANIZATION, serviceId: where.owner, pipeId: DRIFT_RECORD };
  const state = plan.pending ? DRIFTED : IN_SYNC;
  const previous = await deps.store.getPipe(ids.organizationId, ids.serviceId, ids.pipeId);
  // The first run records "in sync" silently; a drift is told from the first run on.
  const decision = decide(
    previous,
    { ...ids, pipeName: `dashboards of ${where.owner}`, state },
    now,
    policy,
    { baseline: true },
  );
  const notifications = decision.notifications.map((n) => reword(n, plan, where));
  const limits = deliveryLimitsSchema.parse({});
  const carried = dropUnknownNotifiers(
    claimPending(previous?.pending ?? [], runId, now, LEASE_MS),
    deps.notifiers,
  );
  const bounded = boundPending(
    [...carried, ...newPending(notifications, deps.notifiers, runId, now)],
    now,
    limits,
  );
  const errors: string[] = [];
  for (const d of bounded.dropped)
    errors.push(`gave up delivering ${d.notification.id} (${d.reason})`);
  const candidate: PipeRecord = {
    ...decision.next,
    pending: bounded.pending,
    version: previous ? previous.version + 1 : 0,
  };
  const whereKey: Where = { serviceId: where.owner, pipeId: DRIFT_RECORD };
  const claim = await claimRecord(
    previous,
    candidate,
    {
      save: (r) => deps.store.savePipe(r),
      reload: () => deps.store.getPipe(ids.organizationId, ids.serviceId, ids.pipeId),
    },
    whereKey,
    runId,
    deps.logger,
  );
  if (typeof claim === 'string') return { state, notifications: [], errors };
  const delivery = new Delivery({
    runId,
    notifiers: deps.notifiers,
    limits,
    now: () => (deps.now ?? Date.now)(),
    logger: deps.logger,
    ...(deps.signal ? { signal: deps.signal } : {}),
    onError: (e) => errors.push(`${e.notifier}: ${e.message}`),
    onStoreError: (_w, message) => errors.push(`store: ${message}`),
    onDropped: (d) => errors.push(`gave up delivering ${d.notification.id} (${d.reason})`),
  });
  delivery.add([claim]);
  await delivery.drain();
  return { state, notifications: claim.claimed.map((p) => p.notification), errors };
}

/** The watchdog's decision, told in the words of dashboards (and the plan for a drift). */
function reword(
  n: PipeNotification,
  plan: Plan,
  where: { owner: string; source: string; service?: string },
): PipeNotification {
  const drifted = n.to === DRIFTED;
  const hours = ((Date.parse(n.at) - Date.parse(n.since)) / 3_600_000).toFixed(1);
  const message = !drifted
    ? `Dashboards of ${where.owner} are back in sync with ${where.source}`
    : n.kind === 'reminder'
      ? `Dashboards of ${where.owner} still differ from ${where.source} (${hours} h): ${summaryLine(plan)}`
      : `Dashboards of ${where.owner} drifted from ${where.source}: ${summaryLine(plan)}`;
  const markdown = drifted
    ? renderPlanMarkdown(plan, where.service ? { service: where.service } : {})
    : undefined;
  return {
    ...n,
    // A drift seen on the first run is a change from "in sync" like any other.
    kind: n.kind === 'new' ? 'transition' : n.kind,
    from: n.from || IN_SYNC,
    about: 'dashboards',
    message,
    ...(markdown !== undefined
      ? {
          markdown:
            markdown.length > MARKDOWN_CHARS
              ? `${markdown.slice(0, MARKDOWN_CHARS)}\n… (plan cut; run \`cloudops dashboards plan\`)`
              : markdown,
        }
      : {}),
  };
}
