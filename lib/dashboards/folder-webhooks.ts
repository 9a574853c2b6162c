/**
 * `webhook: <name>` naming a webhook of the same folder. Such a name always means the folder's
 * webhook (a hand-made one of the same name does not make it ambiguous), and that webhook may
 * not exist yet: the name resolves to a placeholder id, bound to the real id once the webhooks
 * are planned (an existing one) or written (a new one), before any alert is.
 */
import type { AlertChange } from '../alerts/tile-plan';
import type { ObjectChange } from './objects-plan';
import type { DashboardChange } from './plan';
import type { NameDirectory } from './resolve';
import type { DesiredDashboard, DesiredSavedSearch, DesiredWebhook } from './types';

const PLACEHOLDER = 'folder-webhook:';

/** The directory the names resolve against: the folder's webhooks over the service's. */
export function withFolderWebhooks(
  directory: NameDirectory,
  webhooks: readonly DesiredWebhook[],
): NameDirectory {
  if (webhooks.length === 0) return directory;
  const declared = new Set(webhooks.map((w) => w.name));
  return {
    ...(directory.listSources ? { listSources: (c) => directory.listSources!(c) } : {}),
    // A folder name needs no list; an id or another name is checked against the service's.
    knownWebhooks: new Map(webhooks.map((w) => [w.name, PLACEHOLDER + w.name])),
    // Without the service's list, ids are left for the service to check at write.
    ...(directory.listWebhooks
      ? {
          listWebhooks: async (c) =>
            (await directory.listWebhooks!(c)).filter((w) => !declared.has(w.name ?? '')),
        }
      : {}),
  };
}

/** A folder webhook's id before the webhook is written (bound later, never sent). */
export function isFolderWebhookPlaceholder(id: string): boolean {
  return id.startsWith(PLACEHOLDER);
}

/** Placeholder -> id of each folder webhook that has one (planned unchanged/updated, or written). */
export function webhookIds(
  changes: readonly Pick<ObjectChange, 'kind' | 'name' | 'id'>[],
): Map<string, string> {
  return new Map(
    changes.flatMap((c) => (c.kind === 'webhook' && c.id ? [[PLACEHOLDER + c.name, c.id]] : [])),
  );
}

type Channel = { webhookId?: string };
const bound = <C extends Channel>(ch: C, ids: ReadonlyMap<string, string>): C =>
  ch.webhookId && ids.has(ch.webhookId) ? { ...ch, webhookId: ids.get(ch.webhookId)! } : ch;

/** The declarations with every known placeholder replaced by its webhook's id. */
export function bindDeclared(
  ids: ReadonlyMap<string, string>,
  dashboards: readonly DesiredDashboard[],
  searches: readonly DesiredSavedSearch[],
): { dashboards: DesiredDashboard[]; searches: DesiredSavedSearch[] } {
  const alerts = <A extends { channel: Channel }>(list: readonly A[]) =>
    list.map((a) => ({ ...a, channel: bound(a.channel, ids) }));
  return {
    dashboards: dashboards.map((d) => ({
      ...d,
      tiles: d.tiles.map((t) => ({ ...t, alerts: alerts(t.alerts) })),
    })),
    searches: searches.map((s) => ({ ...s, alerts: alerts(s.alerts) })),
  };
}

/** After the webhooks are written: the planned alert writes carry their ids (in place). */
export function bindPlanned(
  ids: ReadonlyMap<string, string>,
  changes: readonly (DashboardChange | ObjectChange)[],
): void {
  if (ids.size === 0) return;
  const rebind = (a: AlertChange) => {
    if (a.want) a.want = { ...a.want, channel: bound(a.want.channel, ids) };
  };
  for (const c of changes) {
    c.alerts.forEach(rebind);
    if ('desired' in c && c.desired) c.desired = bindDeclared(ids, [c.desired], []).dashboards[0];
    if ('search' in c && c.search) c.search = bindDeclared(ids, [], [c.search]).searches[0];
  }
}
