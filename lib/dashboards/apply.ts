/**
 * Applies a plan: dashboards one at a time (the API has no optimistic concurrency), then the
 * tile alerts of each. A fresh plan (`apply --dir`) is applied as planned, without re-reading
 * each dashboard: 1 list + k writes. A saved plan is checked first (checkSavedPlan): one list
 * shows whether anything it touches changed since, and then nothing is written at all.
 *
 * A create has no idempotency on the service, so a failed create is retried safely within the
 * run: re-list, find the dashboard (or alert) by its marker, create only if it is absent.
 * A failure is per dashboard; an interrupt stops at once and the result says what was not done.
 */
import { ApiError, isNotFound, TransportError } from '../api/errors';
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import { ownerId as alertOwnerId, parseMarker, withMarker as markAlert } from '../alerts/marker';
import { CloudOpsError, type ErrorOptions } from '../errors';
import type { Logger } from '../log';
import { redactText } from '../redact';
import type { Alert, CreateAlertBody, Dashboard } from '../schemas';
import type { FileAlert } from './file-schema';
import { fingerprint, stableStringify } from './normalize';
import { identityTag, ownerOf, ownerTag } from './ownership';
import {
  alertShape,
  dashboardOf,
  tileOf,
  tileIdentity,
  writeBody,
  type AlertChange,
  type DashboardAction,
  type DashboardChange,
  type Plan,
} from './plan';

export type ApplyStatus =
  'created' | 'updated' | 'deleted' | 'unchanged' | 'aborted' | 'failed' | 'not applied';

/** A file's alert plus the tile it sits on (the `alerts` of a `Dashboard Synced` event). */
export type DeclaredAlert = FileAlert & { tileName: string };

export interface AlertResult {
  action: AlertChange['action'];
  name: string;
  tile: string;
  id?: string;
  status: 'done' | 'failed' | 'not applied';
  message?: string;
}

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
  /** The version written into alert markers. @default now */
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
  };
  let interrupted = false;
  for (const change of plan.changes) {
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
  const ok = results.every(
    (r) =>
      !['failed', 'aborted', 'not applied'].includes(r.status) &&
      (r.alertResults ?? []).every((a) => a.status === 'done'),
  );
  return { results, ok, interrupted };
}

interface Ctx {
  backend: Backend;
  call: CallOptions;
  owner: string;
  attempts: number;
  relistDelayMs: number;
  version: string;
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
  const alertResults = await applyAlerts(change, after, tiles, ctx);
  return { ...base, id: after.id, status, tiles, alertResults };
}

/** POST, and after an ambiguous failure re-list and look for our marker before trying again. */
async function createDashboardOnce(change: DashboardChange, ctx: Ctx): Promise<Dashboard> {
  const body = writeBody(change.desired!, [], ctx.owner);
  const tag = identityTag(change.key!);
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.backend.createDashboard(body, ctx.call);
    } catch (error) {
      if (ctx.call.signal?.aborted || attempt >= ctx.attempts || !retryable(error)) throw error;
      await waitIfTimedOut(error, ctx);
      const list = await relistUntilAnswer(() => ctx.backend.listDashboards(ctx.call), ctx);
      const found = list.find((d) => ownerTag(d.tags) === tag && ownerOf(d.tags) === ctx.owner);
      if (found) return found;
    }
  }
}

/** 5xx, 429, timeouts and resets: the create may or may not have landed; look, then retry. */
function retryable(error: unknown): boolean {
  return (error instanceof ApiError || error instanceof TransportError) && error.retryable;
}

/** A timed-out request may land late: give it time before looking for it. */
async function waitIfTimedOut(error: unknown, ctx: Ctx): Promise<void> {
  if (!(error instanceof TransportError) || error.kind !== 'timeout') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ctx.relistDelayMs);
    ctx.call.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), {
      once: true,
    });
  });
}

/** A list that itself fails is retried a few times; then the create is not retried. */
async function relistUntilAnswer<T>(list: () => Promise<T>, ctx: Ctx): Promise<T> {
  for (let i = 0; i < ctx.attempts; i++) {
    try {
      return await list();
    } catch (error) {
      if (ctx.call.signal?.aborted) throw error;
    }
  }
  // Not knowing whether the first create landed, a second create could duplicate it.
  throw new CloudOpsError(
    'create failed, and the list to check for it failed too; run apply again',
  );
}

/** Tile identity (key, else name) -> id, for the events and the alert writes. */
function tileIds(change: DashboardChange, d: Dashboard): { name: string; id: string }[] {
  const identity = new Map((change.desired?.tiles ?? []).map((t) => [t.name, tileIdentity(t)]));
  return d.tiles.map((t) => ({ name: identity.get(t.name) ?? t.name, id: t.id }));
}

async function applyAlerts(
  change: DashboardChange,
  d: Dashboard,
  tiles: { name: string; id: string }[],
  ctx: Ctx,
): Promise<AlertResult[]> {
  const out: AlertResult[] = [];
  const tileId = new Map(tiles.map((t) => [t.name, t.id]));
  // Deletes first: a re-created alert of the same name must not meet its predecessor.
  const ordered = [...change.alerts].sort(
    (a, b) => Number(b.action === 'delete') - Number(a.action === 'delete'),
  );
  for (const a of ordered) {
    const head = { action: a.action, name: a.name, tile: a.tile };
    if (ctx.call.signal?.aborted) {
      out.push({ ...head, ...(a.id ? { id: a.id } : {}), status: 'not applied' });
      continue;
    }
    try {
      if (a.action === 'delete') {
        await ctx.backend.deleteAlert(a.id!, ctx.call).catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
        out.push({ ...head, id: a.id, status: 'done' });
        continue;
      }
      const tid = tileId.get(a.tileIdentity);
      if (!tid) throw new CloudOpsError(`tile "${a.tile}" has no id after the write`);
      const body = alertBody(change.key!, d.id, tid, a, ctx.version);
      if (a.action === 'update') {
        await ctx.backend.updateAlert(a.id!, body, ctx.call);
        out.push({ ...head, id: a.id, status: 'done' });
      } else {
        const made = await createAlertOnce(body, change.key!, d.id, a, ctx);
        out.push({ ...head, id: made.id, status: 'done' });
      }
    } catch (error) {
      if (ctx.call.signal?.aborted) throw error;
      out.push({
        ...head,
        ...(a.id ? { id: a.id } : {}),
        status: 'failed',
        message: describe(error),
      });
    }
  }
  return out;
}

function alertBody(
  key: string,
  dashboardId: string,
  tileId: string,
  a: AlertChange,
  version: string,
): CreateAlertBody {
  const w = a.want!;
  return {
    source: 'tile',
    dashboardId,
    tileId,
    name: w.name,
    threshold: w.threshold,
    ...(w.thresholdMax !== undefined ? { thresholdMax: w.thresholdMax } : {}),
    thresholdType: w.thresholdType,
    ...(w.thresholdMax !== undefined ? { thresholdMax: w.thresholdMax } : {}),
    interval: w.interval,
    channel: {
      type: w.channel.type,
      ...(w.channel.webhookId !== undefined ? { webhookId: w.channel.webhookId } : {}),
    },
    message: markAlert(w.message, {
      owner: { kind: 'dashboard', dashboardKey: key, tileName: a.tileIdentity, alertName: w.name },
      version,
    }),
  };
}

async function createAlertOnce(
  body: CreateAlertBody,
  key: string,
  dashboardId: string,
  a: AlertChange,
  ctx: Ctx,
): Promise<Alert> {
  const want = alertOwnerId({
    kind: 'dashboard',
    dashboardKey: key,
    tileName: a.tileIdentity,
    alertName: a.name,
  });
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.backend.createAlert(body, ctx.call);
    } catch (error) {
      if (ctx.call.signal?.aborted || attempt >= ctx.attempts || !retryable(error)) throw error;
      await waitIfTimedOut(error, ctx);
      const list = await relistUntilAnswer(() => ctx.backend.listAlerts(ctx.call), ctx);
      const found = list.find((x) => {
        const m = parseMarker(x.message);
        return m && dashboardOf(x) === dashboardId && alertOwnerId(m.owner) === want;
      });
      if (found) return found;
    }
  }
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
