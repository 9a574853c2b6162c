/**
 * What one run of the sync function reports: its summary (what was planned, written and left)
 * and where it stopped. A run that reaches its deadline answers with this summary before the
 * Lambda's timeout (the handler never fails for running out of time) and says how far it got.
 */
import type { ApplyResult, ApplyStatus } from './apply';
import type { Progress } from './continuation';
import type { ObjectKind } from './objects-plan';
import type { DashboardAction, Plan } from './plan';
import { applySummaryLine, summaryLine } from './render';
import type { SyncOutcome } from './sync';
import { applyTally, planTally, type Tally } from './tally';
import type { Trigger } from './trigger';

export interface SyncFunctionSummary {
  trigger: Trigger['kind'];
  mode: 'apply' | 'plan' | 'skipped';
  /** The plan's counts; `unchanged` includes the dashboards the manifest vouched for unread. */
  counts?: Record<DashboardAction, number>;
  /** The plan's counts of every kind (dashboards as in `counts`, webhooks, saved searches, alerts). */
  planned?: Tally;
  /** Apply mode: what the run did, by kind and status. */
  applied?: Tally;
  /** The line a person reads: the apply's (apply mode) or the plan's, the CLI's words. */
  summaryLine?: string;
  pending?: boolean;
  /** Dashboard files listed, read, planned, and vouched in sync (read or not). */
  files?: { listed: number; read: number; planned: number; inSync: number };
  /** Dashboards, then webhooks and saved searches (these carry their `kind`). */
  results: {
    kind?: ObjectKind;
    key?: string;
    name: string;
    status: ApplyStatus | 'planned';
    message?: string;
  }[];
  eventsSent: number;
  /** Report mode with notifiers: the drift notices this run sent (or left pending). */
  driftNotices?: number;
  /** The run stopped at its deadline: how far it got, and whether it asked for its next round. */
  stopped?: StoppedRun;
}

export interface StoppedRun {
  /** `reading`: before any write (files, lists, plan); `applying`: between two writes. */
  phase: 'reading' | 'applying';
  round: number;
  /** Dashboard and alert writes done by this run. */
  applied: number;
  /** Dashboard and alert writes left. */
  pending: number;
  /** A continuation event was sent (else the next scheduled run goes on). */
  continued: boolean;
}

/** Writes done and left by an apply, and the round it belongs to. */
export function progressOf(apply: ApplyResult, trigger: Trigger): Progress {
  let applied = 0;
  let pending = 0;
  for (const r of [...apply.results, ...(apply.objects ?? [])]) {
    if (r.status === 'created' || r.status === 'updated' || r.status === 'deleted') applied += 1;
    if (r.status === 'not applied') pending += 1;
    for (const a of r.alertResults ?? []) {
      if (a.status === 'done') applied += 1;
      if (a.status === 'not applied') pending += 1;
    }
  }
  const continued = trigger.kind === 'continuation';
  return {
    round: continued ? trigger.round : 1,
    applied,
    pending,
    ...(continued ? { pendingBefore: trigger.pending } : {}),
  };
}

/** The summary's plan part: counts (with the manifest's unread in-sync ones) and files. */
export function planSummary(
  trigger: Trigger,
  mode: 'apply' | 'plan',
  outcome: Pick<SyncOutcome, 'plan' | 'files'>,
): Omit<SyncFunctionSummary, 'results' | 'eventsSent'> {
  const { plan, files } = outcome;
  const unread = files?.inSync ?? 0;
  return {
    trigger: trigger.kind,
    mode,
    counts: { ...plan.counts, unchanged: plan.counts.unchanged + unread },
    planned: planTally(plan, unread),
    summaryLine: summaryLine(plan, unread),
    pending: plan.pending,
    ...(files ? { files } : {}),
  };
}

/** The summary's apply part: what was done, by kind, and its line (`unread` as in planSummary). */
export function applySummary(
  apply: ApplyResult,
  unread: number,
): Pick<SyncFunctionSummary, 'applied' | 'summaryLine'> {
  return { applied: applyTally(apply, unread), summaryLine: applySummaryLine(apply, unread) };
}

/** Report mode: the dashboards the plan would change. */
export function plannedResults(plan: Plan): SyncFunctionSummary['results'] {
  return [
    ...plan.changes
      .filter((c) => c.action !== 'unchanged')
      .map((c) => ({ key: c.key, name: c.name, status: 'planned' as const })),
    ...(plan.objects ?? [])
      .filter((c) => c.action !== 'unchanged' || c.alerts.length > 0)
      .map((c) => ({ kind: c.kind, key: c.key, name: c.name, status: 'planned' as const })),
  ];
}

export function applyResults(apply: ApplyResult): SyncFunctionSummary['results'] {
  return [
    ...apply.results.map((r) => ({
      key: r.key,
      name: r.name,
      status: r.status,
      ...(r.message ? { message: r.message } : {}),
    })),
    ...(apply.objects ?? []).map((r) => ({
      kind: r.kind,
      key: r.key,
      name: r.name,
      status: r.status,
      ...(r.message ? { message: r.message } : {}),
    })),
  ];
}
