/**
 * Applies a plan. Unchanged dashboards cost nothing. Writes run one at a time (the API has
 * no optimistic concurrency), and each update or delete re-reads its dashboard first: if it
 * differs from what the plan saw, someone edited it since, and that one dashboard is aborted
 * rather than overwritten. Other dashboards still apply; a failure is per dashboard.
 */
import { isNotFound } from '../api/errors';
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import { CloudOpsError } from '../errors';
import type { Logger } from '../log';
import { redactText } from '../redact';
import type { Dashboard } from '../schemas';
import type { FileAlert } from './file-schema';
import { fingerprint } from './normalize';
import { writeBody, type DashboardAction, type DashboardChange, type Plan } from './plan';

export type ApplyStatus = 'created' | 'updated' | 'deleted' | 'unchanged' | 'aborted' | 'failed';

/** A file's alert plus the tile it sits on (the `alerts` of a `Dashboard Synced` event). */
export type DeclaredAlert = FileAlert & { tileName: string };

export interface DashboardResult {
  action: DashboardAction;
  status: ApplyStatus;
  key?: string;
  id?: string;
  name: string;
  sourceFile?: string;
  /** Tile name -> id after the apply (empty for deleted, aborted and failed). */
  tiles: { name: string; id: string }[];
  /** Alerts declared on the tiles in the file (for the `Dashboard Synced` event). */
  alerts: DeclaredAlert[];
  /** Why it was aborted or failed. */
  message?: string;
}

export interface ApplyResult {
  results: DashboardResult[];
  /** False when any dashboard was aborted or failed. */
  ok: boolean;
}

export interface ApplyOptions {
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  /** Called after each dashboard (progress output). */
  readonly onResult?: (result: DashboardResult) => void;
}

type Backend = Pick<
  ObservabilityBackend,
  'getDashboard' | 'createDashboard' | 'updateDashboard' | 'deleteDashboard'
>;

export async function applyPlan(
  plan: Plan,
  backend: Backend,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const call: CallOptions = options.signal ? { signal: options.signal } : {};
  const results: DashboardResult[] = [];
  for (const change of plan.changes) {
    // Sequential on purpose: one write in flight at a time.
    const result = await applyOne(change, backend, call);
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
  return { results, ok: results.every((r) => r.status !== 'failed' && r.status !== 'aborted') };
}

class ConcurrentEdit extends CloudOpsError {
  override name = 'ConcurrentEdit';
}

async function applyOne(
  change: DashboardChange,
  backend: Backend,
  call: CallOptions,
): Promise<DashboardResult> {
  const base = {
    action: change.action,
    key: change.key,
    id: change.id,
    name: change.name,
    sourceFile: change.sourceFile,
    alerts: declaredAlerts(change),
  };
  try {
    switch (change.action) {
      case 'unchanged':
        return { ...base, status: 'unchanged', tiles: tileIds(change.seen!) };
      case 'create': {
        const created = await backend.createDashboard(writeBody(change.desired!), call);
        return { ...base, id: created.id, status: 'created', tiles: tileIds(created) };
      }
      case 'update': {
        const current = await reread(change, backend, call);
        if (!current)
          throw new ConcurrentEdit(
            `dashboard ${change.id} was deleted since the plan; run plan again`,
          );
        const updated = await backend.updateDashboard(
          change.id!,
          writeBody(change.desired!, current),
          call,
        );
        return { ...base, status: 'updated', tiles: tileIds(updated) };
      }
      case 'delete': {
        // Already gone counts as done: the goal is its absence.
        if (await reread(change, backend, call)) await backend.deleteDashboard(change.id!, call);
        return { ...base, status: 'deleted', tiles: [] };
      }
    }
  } catch (error) {
    if (call.signal?.aborted) throw error;
    const aborted = error instanceof ConcurrentEdit;
    return { ...base, status: aborted ? 'aborted' : 'failed', tiles: [], message: describe(error) };
  }
}

/** GET just before the write; undefined when it is gone; throws ConcurrentEdit when it changed. */
async function reread(
  change: DashboardChange,
  backend: Backend,
  call: CallOptions,
): Promise<Dashboard | undefined> {
  let current: Dashboard;
  try {
    current = await backend.getDashboard(change.id!, call);
  } catch (error) {
    // Only a JSON 404 means "gone": an HTML 404 is a wrong URL, and must not count as deleted.
    if (isNotFound(error)) return undefined;
    throw error;
  }
  if (fingerprint(current) !== fingerprint(change.seen!)) {
    throw new ConcurrentEdit(
      `dashboard "${current.name}" (${change.id}) was edited since the plan; not overwritten. Run plan again to see the edit`,
    );
  }
  return current;
}

function tileIds(d: Dashboard): { name: string; id: string }[] {
  return d.tiles.map((t) => ({ name: t.name, id: t.id }));
}

function declaredAlerts(change: DashboardChange): DeclaredAlert[] {
  return (change.desired?.tiles ?? []).flatMap((t) =>
    t.alerts.map((a) => ({ tileName: t.name, ...a })),
  );
}

function describe(error: unknown): string {
  if (error instanceof CloudOpsError) return error.message;
  return redactText(error instanceof Error ? error.message : String(error));
}
