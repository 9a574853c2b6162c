/**
 * Applies a plan: dashboards one at a time (the API has no optimistic concurrency), each
 * followed by its tile alerts, which the alerts engine writes (lib/alerts tile-apply.ts). A
 * fresh plan (`apply --dir`) is applied as planned, without re-reading each dashboard: 1 list
 * + k writes. A saved plan is checked first (checkSavedPlan): one list shows whether anything
 * it touches changed since, and then nothing is written at all.
 *
 * A create has no idempotency on the service, so a failed create is retried safely within the
 * run (lib/api create-once.ts): re-list, find the dashboard by its marker, create only if it
 * is absent. A failure is per dashboard; an interrupt stops between two writes and the result
 * says what was not done.
 */
import { isNotFound } from '../api/errors';
import { createOnce } from '../api/create-once';
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import { alertShape } from '../alerts/compare';
import { applyTileAlerts, type AlertResult } from '../alerts/tile-apply';
import { AlertWriter } from '../alerts/write';
import { stableStringify } from '../diff';
import { CloudOpsError, type ErrorOptions } from '../errors';
import type { Logger } from '../log';
import { redactText } from '../redact';
import type { Alert, Dashboard } from '../schemas';
import type { FileAlert } from './file-schema';
import { removeExtrasMadeHere } from './converge';
import type { ObjectResult } from './objects-apply';
import { fingerprint } from './normalize';
import { identityTag, ownerOf, ownerTag } from './ownership';
import {
  dashboardOf,
  tileOf,
  tileIdentity,
  writeBody,
  type DashboardAction,
  type DashboardChange,
  type Plan,
} from './plan';

export type ApplyStatus =
  'created' | 'updated' | 'deleted' | 'unchanged' | 'aborted' | 'failed' | 'not applied';

/** A file's alert plus the tile it sits on (the `alerts` of a `Dashboard Synced` event). */
export type DeclaredAlert = FileAlert & { tileName: string };

export interface DashboardResult {
  action: DashboardAction;
  status: ApplyStatus;
  key?: string;
  id?: string;
  name: string;
  sourceFile?: string;
  /** Tile identity (key, else name) -> id after the apply (empty for deleted, aborted, failed). */
  tiles: { name: string; id: string }[];
  /** Alerts declared on the tiles in the file (for the `Dashboard Synced` event). */
  alerts: DeclaredAlert[];
  /** What happened to each planned alert change. */
  alertResults?: AlertResult[];
  /** Why it was aborted or failed. */
  message?: string;
}

export interface ApplyResult {
  results: DashboardResult[];
  /** False when any dashboard or alert was aborted, failed or not applied. */
  ok: boolean;
  /** True when the run was interrupted (Ctrl-C): later results are `not applied`. */
  interrupted: boolean;
  /** The folder's webhooks and saved searches (and the alerts on the searches). */
  objects?: ObjectResult[];
}

export interface ApplyOptions {
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  /** Called after each dashboard (progress output). */
  readonly onResult?: (result: DashboardResult) => void;
  /** Creates tried per dashboard/alert when the service fails (re-listing in between). @default 5 */
  readonly createAttempts?: number;
  /**
   * After a create timed out, how long to wait before re-listing: a request that timed out
   * may still land, and re-listing too early would create it twice. @default 1000
   */
  readonly relistDelayMs?: number;
  /** The version written into alert markers (the sync's time). @default now */
  readonly now?: () => Date;
}

type Backend = Pick<
  ObservabilityBackend,
  | 'listDashboards'
  | 'createDashboard'
  | 'updateDashboard'
  | 'deleteDashboard'
  | 'listAlerts'
  | 'createAlert'
  | 'updateAlert'
  | 'deleteAlert'
>;

/** A saved plan no longer matches the service: nothing was written. */
export class StalePlanError extends CloudOpsError {
  override name = 'StalePlanError';
  readonly stale: readonly string[];
  constructor(message: string, options: ErrorOptions & { stale: readonly string[] }) {
    super(message, options);
    this.stale = options.stale;
  }
}

/**
 * Before a saved plan is applied: one dashboard list (and one alert list when the plan read
 * alerts) shows whether any dashboard it touches changed. Throws StalePlanError, having written nothing.
 */
export async function checkSavedPlan(
  plan: Plan,
  backend: Pick<Backend, 'listDashboards' | 'listAlerts'>,
  call: CallOptions = {},
): Promise<void> {
  const touched = plan.changes.filter((c) => c.action !== 'unchanged' || c.alerts.length > 0);
  if (touched.length === 0) return;
  const current = await backend.listDashboards(call);
  const byId = new Map(current.map((d) => [d.id, d]));
  const stale: string[] = [];
  for (const c of touched) {
    if (c.action === 'create') {
      const tag = identityTag(c.key!);
      const made = current.find((d) => ownerTag(d.tags) === tag && ownerOf(d.tags) === plan.owner);
      if (made) stale.push(`"${c.name}": created since the plan (${made.id})`);
      continue;
    }
    if (c.action === 'conflict') continue;
    const now = byId.get(c.id!);
    if (!now) stale.push(`"${c.name}" (${c.id}): deleted since the plan`);
    else if (fingerprint(now) !== fingerprint(c.seen!))
      stale.push(`"${c.name}" (${c.id}): edited since the plan`);
  }
  if (
    plan.alertsRead &&
    touched.some((c) => c.seenAlerts && c.seenAlerts.length + c.alerts.length > 0)
  ) {
    const alerts = await backend.listAlerts(call);
    for (const c of touched) {
      if (!c.seenAlerts || !c.id) continue;
      const now = alerts
        .filter((a) => dashboardOf(a) === c.id)
        .map(alertPrint)
        .sort();
      const then = c.seenAlerts.map(alertPrint).sort();
      if (stableStringify(now) !== stableStringify(then))
        stale.push(`"${c.name}" (${c.id}): its alerts changed since the plan`);
    }
  }
  if (stale.length > 0)
    throw new StalePlanError(
      `the service changed since the plan was made; nothing was applied. Run plan again.\n  ${stale.join('\n  ')}`,
      { stale },
    );
}

const alertPrint = (a: Alert) =>
  stableStringify({ id: a.id, tileId: tileOf(a), ...alertShape(a), m: a.message ?? '' });

export async function applyPlan(
  plan: Plan,
  backend: Backend,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const call: CallOptions = options.signal ? { signal: options.signal } : {};
  const results: DashboardResult[] = [];
  const ctx: Ctx = {
    backend,
    call,
    owner: plan.owner,
    attempts: options.createAttempts ?? 5,
    relistDelayMs: options.relistDelayMs ?? 1000,
    version: (options.now ?? (() => new Date()))().toISOString(),
    alerts: new AlertWriter({
      backend,
      relist: () => backend.listAlerts(call),
      ...(options.createAttempts !== undefined ? { createAttempts: options.createAttempts } : {}),
      settleMs: options.relistDelayMs ?? 1000,
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  };
  let interrupted = false;
  for (const change of plan.changes) {
    // The stop point: between two dashboards (and, inside one, between two alert writes).
    if (interrupted || options.signal?.aborted) {
      interrupted = true;
      results.push(notApplied(change));
      continue;
    }
    let result: DashboardResult;
    try {
      // Sequential on purpose: one write in flight at a time.
      result = await applyOne(change, ctx);
    } catch (error) {
      if (!options.signal?.aborted) throw error;
      interrupted = true;
      result = { ...notApplied(change), message: 'interrupted' };
    }
    options.logger?.[result.status === 'failed' || result.status === 'aborted' ? 'warn' : 'info'](
      `dashboard ${result.status}`,
      {
        key: result.key,
        id: result.id,
        name: result.name,
        ...(result.message ? { reason: result.message } : {}),
      },
    );
    options.onResult?.(result);
    results.push(result);
  }
  // Another apply on this owner may have created the same keys meanwhile (converge.ts).
  if (!interrupted) await removeConcurrentExtras(results, backend, plan.owner, call);
  const ok = results.every(
    (r) =>
      !['failed', 'aborted', 'not applied'].includes(r.status) &&
      (r.alertResults ?? []).every((a) => a.status === 'done'),
  );
  return { results, ok, interrupted };
}

async function removeConcurrentExtras(
  results: DashboardResult[],
  backend: Backend,
  owner: string,
  call: CallOptions,
): Promise<void> {
  const made = results.flatMap((r) =>
    r.status === 'created' && r.key && r.id ? [{ key: r.key, id: r.id }] : [],
  );
  let extras: Awaited<ReturnType<typeof removeExtrasMadeHere>>;
  try {
    extras = await removeExtrasMadeHere(made, backend, owner, call);
  } catch {
    // After the writes, best effort: a run stopped at its deadline or a failed list must not
    // lose what was applied; the next plan notes a duplicate left behind.
    return;
  }
  for (const extra of extras) {
    const result = results.find((r) => r.id === extra.id)!;
    result.status = 'deleted';
    result.message = `another apply created "${extra.key}" first (${extra.kept}): this run's copy was removed`;
  }
}

interface Ctx {
  backend: Backend;
  call: CallOptions;
  owner: string;
  attempts: number;
  relistDelayMs: number;
  version: string;
  alerts: AlertWriter;
}

function baseOf(change: DashboardChange) {
  return {
    action: change.action,
    key: change.key,
    id: change.id,
    name: change.name,
    sourceFile: change.sourceFile,
    alerts: declaredAlerts(change),
  };
}

function notApplied(change: DashboardChange): DashboardResult {
  const pending = change.action !== 'unchanged' || change.alerts.length > 0;
  return {
    ...baseOf(change),
    status: pending ? 'not applied' : 'unchanged',
    tiles: [],
    alertResults: change.alerts.map((a) => ({
      action: a.action,
      name: a.name,
      tile: a.tile,
      ...(a.id ? { id: a.id } : {}),
      status: 'not applied' as const,
    })),
  };
}

async function applyOne(change: DashboardChange, ctx: Ctx): Promise<DashboardResult> {
  const base = baseOf(change);
  const { backend, call } = ctx;
  let after: Dashboard;
  let status: ApplyStatus;
  try {
    switch (change.action) {
      case 'conflict':
        return { ...base, status: 'failed', tiles: [], alertResults: [], message: change.reason };
      case 'unchanged':
        after = change.seen!;
        status = 'unchanged';
        break;
      case 'create':
        after = await createDashboardOnce(change, ctx);
        status = 'created';
        break;
      case 'update':
        after = await backend.updateDashboard(
          change.id!,
          writeBody(change.desired!, change.tileIds, ctx.owner),
          call,
        );
        status = 'updated';
        break;
      case 'delete':
        try {
          await backend.deleteDashboard(change.id!, call);
        } catch (error) {
          // Already gone counts as done: the goal is its absence.
          if (!isNotFound(error)) throw error;
        }
        return { ...base, status: 'deleted', tiles: [], alertResults: [] };
    }
  } catch (error) {
    if (call.signal?.aborted) throw error;
    return { ...notApplied(change), status: 'failed', message: describe(error) };
  }
  const tiles = tileIds(change, after);
  const alertResults = await applyTileAlerts(
    change.alerts,
    {
      dashboardKey: change.key!,
      dashboardId: after.id,
      tileIds: new Map(tiles.map((t) => [t.name, t.id])),
      version: ctx.version,
    },
    ctx.alerts,
    call.signal,
  );
  return { ...base, id: after.id, status, tiles, alertResults };
}

/** POST once: after an unknown outcome, the re-list finds ours by its owner and key tags. */
async function createDashboardOnce(change: DashboardChange, ctx: Ctx): Promise<Dashboard> {
  const body = writeBody(change.desired!, [], ctx.owner);
  const tag = identityTag(change.key!);
  const created = await createOnce({
    create: () => ctx.backend.createDashboard(body, ctx.call),
    find: async () =>
      (await ctx.backend.listDashboards(ctx.call)).find(
        (d) => ownerTag(d.tags) === tag && ownerOf(d.tags) === ctx.owner,
      ),
    attempts: ctx.attempts,
    settleMs: ctx.relistDelayMs,
    ...(ctx.call.signal ? { signal: ctx.call.signal } : {}),
  });
  return created.value;
}

/** Tile identity (key, else name) -> id, for the events and the alert writes. */
function tileIds(change: DashboardChange, d: Dashboard): { name: string; id: string }[] {
  const identity = new Map((change.desired?.tiles ?? []).map((t) => [t.name, tileIdentity(t)]));
  return d.tiles.map((t) => ({ name: identity.get(t.name) ?? t.name, id: t.id }));
}

function declaredAlerts(change: DashboardChange): DeclaredAlert[] {
  return (change.desired?.tiles ?? []).flatMap((t) =>
    t.alerts.map((a) => ({ tileName: tileIdentity(t), ...a })),
  );
}

function describe(error: unknown): string {
  if (error instanceof CloudOpsError) return error.message;
  return redactText(error instanceof Error ? error.message : String(error));
}
