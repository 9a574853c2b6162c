/**
 * The plan for a folder's webhooks and saved searches (`kind:` files), beside the dashboards'
 * plan and under the same rules: owned by key and owner (webhooks: the marker line of their
 * description, webhook-marker.ts; saved searches: the dashboards' marker tags), another owner's
 * key is a conflict, a hand-made one of the same name is adopted only with --adopt, prune
 * deletes what no file declares. Pure: the lists are read by the caller (sync.ts).
 *
 * What a plan shows of a webhook never includes its URL, headers or query parameters: a URL
 * change is "changed (not shown)"; headers and query parameters cannot be read back, so they
 * are compared by the digest in the marker and resent only when it changes.
 */
import { alertLinks, type Alert, type SavedSearch, type Webhook } from '../schemas';
import { newTileAlerts, planTileAlerts, type AlertChange } from '../alerts/tile-plan';
import { diffValues, stableStringify, type FieldChange } from '../diff';
import { identityTag, isReservedTag, ownerOf, ownerTag, taggedKey, withMarker } from './ownership';
import type { DesiredSavedSearch, DesiredWebhook, FolderObjects } from './types';
import { descriptionWithoutMarker, parseWebhookMarker } from './webhook-marker';
import { writeOnlyDigest } from './value-digest';

/** The kinds beside dashboards, each listed by its own request. */
export const OBJECT_KINDS = ['webhook', 'savedSearch'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];
export type ObjectAction = 'create' | 'update' | 'delete' | 'unchanged' | 'conflict';
export type WriteOnlyState = 'resent (changed)' | 'unchanged (not readable)';

export interface ObjectChange {
  kind: ObjectKind;
  action: ObjectAction;
  /** Identity of the file; absent for a delete of an object whose key the service lost. */
  key?: string;
  name: string;
  sourceFile?: string;
  /** The service id (update, delete, unchanged, conflict). */
  id?: string;
  adopted?: boolean;
  /** What differs, old -> new; a webhook's URL shows as "(not shown)". */
  fields: FieldChange[];
  /** Webhooks: what happens to the parts the service never returns. */
  writeOnly?: { headers?: WriteOnlyState; queryParams?: WriteOnlyState };
  /** Saved searches: alerts to create/update/delete on it. */
  alerts: AlertChange[];
  /** A saved search's delete: the alerts the service deletes with it. */
  alertsDeleted: { id: string; name?: string }[];
  reason?: string;
  /** What the plan saw (saved plans compare): a fingerprint, never a webhook's URL. */
  seenPrint?: string;
  /** Webhooks: the digests in the marker as seen, kept when the file leaves the parts out. */
  keptDigests?: { headers?: string; queryParams?: string };
  /** Saved searches: the file as written (no secrets: a search has none). */
  search?: DesiredSavedSearch;
}

export interface ObjectLists {
  webhooks?: readonly Webhook[];
  savedSearches?: readonly SavedSearch[];
  /** When read: the saved searches' alerts are planned, deletes name what they take. */
  alerts?: readonly Alert[];
}

export interface ObjectPlanOptions {
  owner: string;
  prune?: boolean;
  adopt?: boolean;
}

export interface ObjectPlan {
  changes: ObjectChange[];
  notes: string[];
}

const HIDDEN = '(not shown)';

/**
 * Whether the service changed what a saved plan saw: for each touched object, its fingerprint
 * now (by id), or, for a create, whether the key was created since. One line per difference.
 */
export function staleObjects(
  changes: readonly ObjectChange[],
  lists: { webhooks?: readonly Webhook[]; savedSearches?: readonly SavedSearch[] },
  owner: string,
): string[] {
  const stale: string[] = [];
  for (const c of changes) {
    if (c.action === 'unchanged' && c.alerts.length === 0) continue;
    if (c.action === 'conflict') continue;
    const rules: KindRules<never, Webhook | SavedSearch> =
      c.kind === 'webhook' ? webhookKind() : searchKind({});
    const list = (c.kind === 'webhook' ? lists.webhooks : lists.savedSearches) ?? [];
    const noun = `${rules.noun} "${c.name}"`;
    if (c.action === 'create') {
      const made = list.find((a) => {
        const o = rules.ownedAs(a);
        return o?.owner === owner && o.identity === rules.identityOf(c.key!);
      });
      if (made) stale.push(`${noun}: created since the plan (${rules.idOf(made)})`);
      continue;
    }
    const now = list.find((a) => rules.idOf(a) === c.id);
    if (!now) stale.push(`${noun} (${c.id}): deleted since the plan`);
    else if (rules.print(now) !== c.seenPrint)
      stale.push(`${noun} (${c.id}): edited since the plan`);
  }
  return stale;
}

export function planObjects(
  desired: FolderObjects,
  lists: ObjectLists,
  options: ObjectPlanOptions,
): ObjectPlan {
  const notes: string[] = [];
  const changes = [
    ...planKind(desired.webhooks, lists.webhooks, webhookKind(), options, notes),
    ...planKind(desired.savedSearches, lists.savedSearches, searchKind(lists), options, notes),
  ];
  return { changes, notes };
}

/** How one kind is owned, matched and compared. */
interface KindRules<D extends { key: string; name: string; sourceFile: string }, A> {
  kind: ObjectKind;
  noun: string;
  idOf(a: A): string;
  nameOf(a: A): string;
  /** The identity a file's key gives (what ownedAs reads back). */
  identityOf(key: string): string;
  /** The identity and owner an object carries if cloudops owns it, and its key when known. */
  ownedAs(a: A): { identity: string; owner: string; key?: string } | undefined;
  diff(want: D, have: A, owner: string, adopted: boolean): Partial<ObjectChange>;
  created(want: D): Partial<ObjectChange>;
  deleted(have: A): Partial<ObjectChange>;
  print(a: A): string;
  /** A hand-made one with the same name blocks a create (webhooks: names are unique). */
  nameIsUnique: boolean;
}

function planKind<D extends { key: string; name: string; sourceFile: string }, A>(
  desired: readonly D[],
  actual: readonly A[] | undefined,
  rules: KindRules<D, A>,
  options: ObjectPlanOptions,
  notes: string[],
): ObjectChange[] {
  if (desired.length === 0 && (actual === undefined || !options.prune)) return [];
  const have = actual ?? [];
  const mine = new Map<string, A>();
  const foreign = new Map<string, A>();
  const handMade: A[] = [];
  for (const a of have) {
    const owned = rules.ownedAs(a);
    if (!owned) handMade.push(a);
    else if (owned.owner === options.owner) {
      if (!mine.has(owned.identity)) mine.set(owned.identity, a);
    } else if (!foreign.has(owned.identity)) foreign.set(owned.identity, a);
  }
  const base = (d: D) => ({ kind: rules.kind, key: d.key, name: d.name, sourceFile: d.sourceFile });
  const empty = { fields: [], alerts: [], alertsDeleted: [] };
  const out: ObjectChange[] = [];
  const adopted = new Set<A>();
  for (const want of [...desired].sort((a, b) => a.key.localeCompare(b.key))) {
    let target = mine.get(rules.identityOf(want.key));
    const other = foreign.get(rules.identityOf(want.key));
    if (!target && other) {
      out.push({
        ...base(want),
        ...empty,
        action: 'conflict',
        id: rules.idOf(other),
        reason: `key "${want.key}" is owned by another owner (${rules.noun} "${rules.nameOf(other)}", ${rules.idOf(other)}); not taken over`,
      });
      continue;
    }
    const sameName = handMade.filter((a) => rules.nameOf(a) === want.name && !adopted.has(a));
    if (!target && sameName.length === 1 && options.adopt) {
      target = sameName[0];
      adopted.add(target);
    } else if (!target && sameName.length > 0) {
      const ids = sameName.map((a) => rules.idOf(a)).join(', ');
      const why = `hand-made ${rules.noun} "${want.name}" (${ids}) is left alone; --adopt would take it over`;
      if (rules.nameIsUnique) {
        // The service refuses a second webhook of the same name: planned as a conflict, not a 400.
        out.push({
          ...base(want),
          ...empty,
          action: 'conflict',
          id: sameName[0] && rules.idOf(sameName[0]),
          reason: why,
        });
        continue;
      }
      notes.push(why);
    }
    if (!target) {
      out.push({ ...base(want), ...empty, action: 'create', ...rules.created(want) });
      continue;
    }
    const isAdopted = adopted.has(target);
    const diff = rules.diff(want, target, options.owner, isAdopted);
    const writes =
      (diff.fields?.length ?? 0) > 0 ||
      Object.values(diff.writeOnly ?? {}).includes('resent (changed)') ||
      isAdopted;
    out.push({
      ...base(want),
      ...empty,
      ...diff,
      action: writes ? 'update' : 'unchanged',
      id: rules.idOf(target),
      ...(isAdopted ? { adopted: true } : {}),
      seenPrint: rules.print(target),
    });
  }
  const declared = new Set(desired.map((d) => rules.identityOf(d.key)));
  for (const [identity, a] of mine) {
    if (declared.has(identity)) continue;
    const key = rules.ownedAs(a)?.key;
    if (!options.prune) {
      notes.push(
        `owned ${rules.noun} "${rules.nameOf(a)}" (${rules.idOf(a)}) has no file; --prune deletes it`,
      );
      continue;
    }
    out.push({
      kind: rules.kind,
      action: 'delete',
      ...(key !== undefined ? { key } : {}),
      name: rules.nameOf(a),
      id: rules.idOf(a),
      ...empty,
      reason: `no ${rules.noun} file declares it`,
      ...rules.deleted(a),
      seenPrint: rules.print(a),
    });
  }
  return out;
}

/** The webhook body fields a plan may show (no URL, headers or query parameters). */
function shownWebhook(w: {
  name?: string | null;
  service?: string | null;
  description?: string | null;
  body?: string | null;
}) {
  return {
    name: w.name ?? '',
    service: w.service ?? 'generic',
    description: descriptionWithoutMarker(w.description),
    body: w.body ?? '',
  };
}

function webhookKind(): KindRules<DesiredWebhook, Webhook> {
  return {
    kind: 'webhook',
    noun: 'webhook',
    nameIsUnique: true,
    idOf: (w) => w.id,
    nameOf: (w) => w.name ?? '',
    identityOf: (key) => key,
    ownedAs: (w) => {
      const m = parseWebhookMarker(w.description);
      return m ? { identity: m.key, key: m.key, owner: m.owner } : undefined;
    },
    created: (want) => ({
      fields: diffValues({}, { ...shownWebhook(want), url: HIDDEN }),
      writeOnly: writeOnlyOf(want, undefined),
    }),
    deleted: () => ({}),
    diff: (want, have, owner) => {
      const fields = diffValues(shownWebhook(have), shownWebhook(want));
      if ((have.url ?? '') !== want.url) fields.push({ path: 'url', from: HIDDEN, to: HIDDEN });
      const marker = parseWebhookMarker(have.description);
      if (!marker || marker.owner !== owner || marker.key !== want.key)
        fields.push({ path: 'marker', to: 'ownership marker' });
      else if (stableStringify(marker.templates ?? {}) !== stableStringify(want.templates))
        fields.push({
          path: 'marker',
          to: 'variables or secrets named by url, headers or queryParams',
        });
      const moved = (have.url ?? '') !== want.url || (have.service ?? 'generic') !== want.service;
      return {
        fields,
        writeOnly: writeOnlyOf(want, marker, moved),
        keptDigests: {
          ...(marker?.headers ? { headers: marker.headers } : {}),
          ...(marker?.queryParams ? { queryParams: marker.queryParams } : {}),
        },
      };
    },
    // The URL is a credential: only a digest of it is kept.
    print: (w) =>
      stableStringify({
        ...shownWebhook(w),
        marker: w.description ?? '',
        url: writeOnlyDigest(w.id, { url: w.url ?? '' }),
      }),
  };
}

/**
 * Headers and query parameters: a file without them leaves them as the service holds them;
 * with them, they are resent when their digest differs from the marker's, or when the URL or
 * service changes (the service then drops the ones a PUT omits).
 */
function writeOnlyOf(
  want: DesiredWebhook,
  marker: { headers?: string; queryParams?: string } | undefined,
  moved = false,
): ObjectChange['writeOnly'] {
  const out: NonNullable<ObjectChange['writeOnly']> = {};
  for (const field of ['headers', 'queryParams'] as const) {
    if (want[field] === undefined) continue;
    const same = marker !== undefined && writeOnlyDigest(want.key, want[field]) === marker[field];
    out[field] = same && !moved ? 'unchanged (not readable)' : 'resent (changed)';
  }
  return out;
}

/** A saved search's fields as the service stores them (its defaults filled in). */
function searchShape(s: {
  name?: string | null;
  sourceId?: string | null;
  select?: string | null;
  where?: string | null;
  whereLanguage?: string | null;
  orderBy?: string | null;
  filters?: readonly { condition?: unknown; type?: unknown }[] | null;
}) {
  return {
    name: s.name ?? '',
    sourceId: s.sourceId ?? '',
    select: s.select ?? '',
    where: s.where ?? '',
    whereLanguage: s.whereLanguage ?? 'lucene',
    orderBy: s.orderBy ?? '',
    filters: (s.filters ?? []).map((f) => ({ type: f.type ?? 'sql', condition: f.condition })),
  };
}

function searchKind(lists: ObjectLists): KindRules<DesiredSavedSearch, SavedSearch> {
  const alertsOn = (id: string) =>
    (lists.alerts ?? []).filter((a) => alertLinks(a).savedSearchId === id);
  const holder = (key: string) => ({ kind: 'search' as const, searchKey: key });
  const tile = (want: DesiredSavedSearch, id: string | undefined) => ({
    identity: want.key,
    name: want.name,
    id,
    alerts: want.alerts,
  });
  return {
    kind: 'savedSearch',
    noun: 'saved search',
    nameIsUnique: false,
    idOf: (s) => s.id,
    nameOf: (s) => s.name ?? '',
    identityOf: identityTag,
    ownedAs: (s) => {
      const tags = s.tags ?? [];
      const identity = ownerTag(tags);
      if (!identity) return undefined;
      const key = taggedKey(tags);
      return {
        identity,
        owner: ownerOf(tags),
        ...(key !== undefined && identityTag(key) === identity ? { key } : {}),
      };
    },
    created: (want) => ({
      search: want,
      fields: diffValues({}, { ...searchShape(want), tags: want.tags }),
      alerts: newTileAlerts([tile(want, undefined)]),
    }),
    deleted: (s) => ({
      alertsDeleted: alertsOn(s.id).map((a) => ({
        id: a.id,
        ...(a.name != null ? { name: a.name } : {}),
      })),
    }),
    diff: (want, have, owner, adopted) => {
      const fields = diffValues(searchShape(have), searchShape(want));
      const haveTags = [...(have.tags ?? [])].sort();
      const wantTags = withMarker(want.tags, want.key, owner, want.alerts.length > 0);
      const userHave = haveTags.filter((t) => !isReservedTag(t));
      const userWant = wantTags.filter((t) => !isReservedTag(t));
      fields.push(...diffValues({ tags: userHave }, { tags: userWant }));
      const marker = (tags: string[]) => stableStringify(tags.filter(isReservedTag));
      if (marker(haveTags) !== marker(wantTags))
        fields.push({ path: 'marker', to: 'ownership marker' });
      const alerts =
        lists.alerts === undefined
          ? []
          : planTileAlerts({
              holder: holder(want.key),
              tiles: [tile(want, have.id)],
              onDashboard: alertsOn(have.id),
              tileNames: new Map([[have.id, want.name]]),
              adopt: adopted,
            });
      return { fields, alerts, search: want };
    },
    print: (s) => stableStringify({ ...searchShape(s), tags: [...(s.tags ?? [])].sort() }),
  };
}
