/**
 * The webhooks and saved searches of one service's sync, around the dashboards' plan and apply
 * (sync.ts). Planning reads one list per kind the folder declares, and no other: a folder of
 * dashboards costs what it did (so --prune finds orphans of a kind only while the folder still
 * declares one of that kind), and the alert list only when an alert of a saved search matters
 * or a delete must say what it takes; every list is shared with the dashboards' plan.
 *
 * Files refer to each other by name: a folder webhook's id is bound into the declarations once
 * known (planning for an existing webhook, apply for a new one).
 */
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import type { AlertWriter } from '../alerts/write';
import { ValidationError } from '../errors';
import type { Alert } from '../schemas';
import { bindDeclared, bindPlanned, webhookIds } from './folder-webhooks';
import {
  deleteObjects,
  writeObjects,
  writeSearchAlerts,
  type ObjectResult,
  type ObjectsContext,
} from './objects-apply';
import { planObjects, staleObjects, type ObjectChange, type ObjectPlan } from './objects-plan';
import { StalePlanError } from './apply';
import { ALERTS_TAG } from './ownership';
import type { Plan } from './plan';
import type { DesiredDashboard, DesiredWebhook, FolderObjects } from './types';

const NONE: FolderObjects = { webhooks: [], savedSearches: [] };

export interface ObjectsPlanInput {
  objects?: FolderObjects;
  owner: string;
  prune?: boolean;
  adopt?: boolean;
}

export interface PlannedObjects extends ObjectPlan {
  /** The dashboards with the ids of the folder's existing webhooks bound in. */
  dashboards: DesiredDashboard[];
  /** The folder's webhooks by key: what apply writes (kept out of the plan: secrets). */
  webhooks: Map<string, DesiredWebhook>;
}

const LISTS = new Set<PropertyKey>([
  'listAlerts',
  'listWebhooks',
  'listSavedSearches',
  'listSources',
]);

/**
 * A backend for planning only: each list is read once per run, whoever asks first (names
 * resolved at load, the objects' plan, the dashboards' plan). Never for apply: a write makes
 * the lists stale.
 */
export function listsOnce(backend: ObservabilityBackend): ObservabilityBackend {
  const read = new Map<PropertyKey, Promise<unknown>>();
  return new Proxy(backend, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      if (!LISTS.has(prop)) return bound;
      return (...args: unknown[]) => {
        if (!read.has(prop)) read.set(prop, Promise.resolve(bound(...args)));
        return read.get(prop);
      };
    },
  });
}

export async function planFolderObjects(
  dashboards: readonly DesiredDashboard[],
  input: ObjectsPlanInput,
  backend: ObservabilityBackend,
  call: CallOptions,
): Promise<PlannedObjects> {
  const readAlerts = () => backend.listAlerts(call);
  const objects = input.objects ?? NONE;
  const wants = (declared: number, list: unknown) => list !== undefined && declared > 0;
  const [webhooks, savedSearches] = await Promise.all([
    wants(objects.webhooks.length, backend.listWebhooks) ? backend.listWebhooks!(call) : undefined,
    wants(objects.savedSearches.length, backend.listSavedSearches)
      ? backend.listSavedSearches!(call)
      : undefined,
  ]);
  const options = { owner: input.owner, prune: input.prune, adopt: input.adopt };
  const lists = { webhooks, savedSearches };
  // The webhooks' plan gives the ids the searches' and dashboards' alerts need.
  const ids = webhookIds(planObjects({ ...objects, savedSearches: [] }, lists, options).changes);
  const bound = bindDeclared(ids, dashboards, objects.savedSearches);
  const folder = { webhooks: objects.webhooks, savedSearches: bound.searches };
  let plan = planObjects(folder, lists, options);
  const needsAlerts =
    bound.searches.some((s) => s.alerts.length > 0) ||
    (savedSearches ?? []).some((s) => (s.tags ?? []).includes(ALERTS_TAG)) ||
    plan.changes.some((c) => c.action === 'delete');
  if (needsAlerts) plan = planObjects(folder, { ...lists, alerts: await readAlerts() }, options);
  return {
    ...plan,
    dashboards: bound.dashboards,
    webhooks: new Map(objects.webhooks.map((w) => [w.key, w])),
  };
}

/**
 * A webhook an alert still uses is not deleted (the service would refuse it with a 409 in the
 * middle of the apply): refused here, naming the alerts, unless this plan deletes them too.
 */
export async function refuseWebhooksInUse(
  plan: Plan,
  objects: readonly ObjectChange[],
  readAlerts: () => Promise<Alert[]>,
): Promise<void> {
  const deletes = objects.filter((c) => c.kind === 'webhook' && c.action === 'delete');
  if (deletes.length === 0) return;
  const alerts = await readAlerts();

  // Alerts this plan deletes (with a tile, a dashboard or a search), or deletes itself.
  const gone = new Set([
    ...plan.changes.flatMap((c) => c.alertsDeleted.map((a) => a.id)),
    ...[...plan.changes, ...objects].flatMap((c) =>
      c.alerts.filter((a) => a.action === 'delete').map((a) => a.id),
    ),
    ...objects.flatMap((c) => c.alertsDeleted.map((a) => a.id)),
  ]);
  // Alerts this plan points elsewhere (written before the webhooks are deleted).
  const moved = new Map(
    [...plan.changes, ...objects].flatMap((c) =>
      c.alerts.flatMap((a) =>
        a.action === 'update' && a.id ? [[a.id, a.want?.channel.webhookId]] : [],
      ),
    ),
  );
  const lines = deletes.flatMap((w) => {
    const users = alerts.filter(
      (a) =>
        a.channel?.webhookId === w.id &&
        !gone.has(a.id) &&
        (!moved.has(a.id) || moved.get(a.id) === w.id),
    );
    if (users.length === 0) return [];
    const named = users.map((a) => `"${a.name ?? ''}" (${a.id})`).join(', ');
    return [
      `webhook "${w.name}" (${w.id}) is not deleted: ${users.length} alert(s) still use it: ${named}`,
    ];
  });
  if (lines.length > 0)
    throw new ValidationError(
      `${lines.join('; ')}. Point those alerts at another webhook, or keep its file.`,
    );
}

export interface ObjectsApply {
  /** Creates and updates (webhooks, then saved searches), binding new webhooks' ids. */
  before(): Promise<void>;
  /** The saved searches' alerts, then deletes (saved searches, then webhooks). */
  after(writer: AlertWriter, version: string): Promise<ObjectResult[]>;
}

export function objectsApply(
  plan: Plan,
  ctx: ObjectsContext,
  signal: AbortSignal | undefined,
): ObjectsApply {
  const changes = plan.objects ?? [];
  let written: ObjectResult[] = [];
  return {
    async before() {
      written = await writeObjects(changes, ctx);
      const ids = webhookIds(written.map((r) => ({ kind: r.kind, name: r.name, id: r.id })));
      bindPlanned(ids, [...plan.changes, ...changes]);
    },
    async after(writer, version) {
      await writeSearchAlerts(written, changes, writer, version, signal);
      return [...written, ...(await deleteObjects(changes, ctx))];
    },
  };
}

/**
 * Before a saved plan writes anything: a webhook or saved search it touches that changed since
 * makes it stale (StalePlanError), as for dashboards. (The values of the webhooks it writes are
 * checked against the plan's digests by the caller: saved-webhooks.ts.)
 */
export async function checkSavedObjects(
  plan: Plan,
  backend: ObservabilityBackend,
  call: CallOptions,
): Promise<void> {
  const touched = (plan.objects ?? []).filter(
    (c) => c.action !== 'unchanged' || c.alerts.length > 0,
  );
  if (touched.length === 0) return;
  const has = (kind: ObjectChange['kind']) => touched.some((c) => c.kind === kind);
  const [webhooks, savedSearches] = await Promise.all([
    has('webhook') ? backend.listWebhooks?.(call) : undefined,
    has('savedSearch') ? backend.listSavedSearches?.(call) : undefined,
  ]);
  const stale = staleObjects(touched, { webhooks, savedSearches }, plan.owner);
  if (stale.length > 0)
    throw new StalePlanError(
      `the service changed since the plan was made; nothing was applied. Run plan again.\n  ${stale.join('\n  ')}`,
      { stale },
    );
}
