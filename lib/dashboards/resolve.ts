/**
 * Names in files become ids: `source: <name>` (series, config, dashboard filter) → `sourceId`, and
 * `webhook: <name>` on an alert channel → `webhookId`; a `webhookId` written as an id is
 * checked to exist. Each list is read at most once per run, and only when a file needs it.
 * Source and webhook names are not documented as unique, so a name two entries share is an
 * error, as is an unknown one (naming file, line and the names that exist). An email channel
 * on a service that takes webhooks only (`/api/v2`) is an error here too, before any write.
 */
import { ApiError } from '../api/errors';
import type { CallOptions } from '../api/http';
import type { ObservabilityMode } from '../api/observability-backend';
import { formatPath } from '../format-issues';
import { locateIn } from './parse';
import type {
  DesiredDashboard,
  DesiredSavedSearch,
  DesiredTile,
  FileIssue,
  SourceFile,
} from './types';

export interface NamedEntry {
  id?: string;
  name?: string | null;
}

/** The two lists the service offers; either may be missing (then names cannot be resolved). */
export interface NameDirectory {
  listSources?(opts?: CallOptions): Promise<NamedEntry[]>;
  listWebhooks?(opts?: CallOptions): Promise<NamedEntry[]>;
  /** `/api/v2` (open-source) takes webhook channels only; email is the management API's. */
  readonly mode?: ObservabilityMode;
  /** Webhook names known without the list (the folder's own webhooks): name -> id. */
  knownWebhooks?: ReadonlyMap<string, string>;
}

interface Ref {
  file: string;
  path: PropertyKey[];
  /** `email`: an email channel, which only some services take (no name to resolve). */
  kind: 'source' | 'webhook' | 'webhookId' | 'email';
  value: string;
  apply: (id: string) => void;
}

/** Every name (and webhook id) the dashboards refer to, with a setter for the resolved id. */
function collectRefs(dashboards: DesiredDashboard[]): Ref[] {
  const refs: Ref[] = [];
  dashboards.forEach((d) => {
    d.filters?.forEach((f, fi) => {
      if (f.source === undefined) return;
      const apply = (id: string) => {
        const { source: _name, ...rest } = f;
        d.filters![fi] = { ...rest, sourceId: id };
      };
      refs.push({
        file: d.sourceFile,
        path: ['filters', fi, 'source'],
        kind: 'source',
        value: f.source,
        apply,
      });
    });
    d.tiles.forEach((t, ti) => {
      const push = (
        path: PropertyKey[],
        kind: Ref['kind'],
        value: string,
        apply: Ref['apply'] = () => {},
      ) => refs.push({ file: d.sourceFile, path: ['tiles', ti, ...path], kind, value, apply });
      t.series.forEach((s, si) => {
        if (s.source === undefined) return;
        push(['series', si, 'source'], 'source', s.source, (id) => {
          const { source: _name, ...rest } = s;
          t.series[si] = { ...rest, sourceId: id };
        });
      });
      const config = t.config;
      if (config?.source !== undefined) {
        push(['config', 'source'], 'source', config.source, (id) => {
          const { source: _name, ...rest } = config;
          t.config = { ...rest, sourceId: id };
        });
      }
      alertRefs(t.alerts, (path, kind, value, apply) => push(path, kind, value, apply));
    });
  });
  return refs;
}

type Push = (path: PropertyKey[], kind: Ref['kind'], value: string, apply?: Ref['apply']) => void;

/** The webhook names and ids of alerts (on a tile or a saved search); `alerts` is a copy. */
function alertRefs(alerts: DesiredTile['alerts'], push: Push): void {
  alerts.forEach((a, ai) => {
    const ch = a.channel;
    if (ch.webhook !== undefined) {
      push(['alerts', ai, 'channel', 'webhook'], 'webhook', ch.webhook, (id) => {
        const { webhook: _name, ...rest } = ch;
        alerts[ai] = { ...a, channel: { ...rest, webhookId: id } };
      });
    } else if (ch.webhookId !== undefined) {
      push(['alerts', ai, 'channel', 'webhookId'], 'webhookId', ch.webhookId);
    } else if (ch.type === 'email') {
      push(['alerts', ai, 'channel', 'type'], 'email', ch.type);
    }
  });
}

/** A saved search names its source and its alerts' webhooks like a tile does. */
function searchRefs(searches: DesiredSavedSearch[]): Ref[] {
  const refs: Ref[] = [];
  for (const s of searches) {
    const push: Push = (path, kind, value, apply = () => {}) =>
      refs.push({ file: s.sourceFile, path, kind, value, apply });
    if (s.source !== undefined)
      push(['source'], 'source', s.source, (id) => {
        delete s.source;
        s.sourceId = id;
      });
    alertRefs(s.alerts, push);
  }
  return refs;
}

/**
 * A service (or API version) without the list answers 404 (the spec snapshot has no webhooks
 * list: a non-JSON 404): then the list is unavailable, and the service checks ids at write.
 */
export async function orAbsent<T>(list: Promise<T[]> | undefined): Promise<T[] | undefined> {
  try {
    return await list;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

const LIST_SHOWN = 20;
function existing(entries: readonly NamedEntry[], label: (e: NamedEntry) => string): string {
  if (entries.length === 0) return 'there are none';
  const shown = entries.slice(0, LIST_SHOWN).map(label).join(', ');
  return `they are ${shown}${entries.length > LIST_SHOWN ? `, … (${entries.length} in all)` : ''}`;
}

/**
 * Resolves every name in place on copies of the dashboards. With no names and no webhook ids
 * in any file, makes no request. Issues carry file, line and path like validation issues.
 */
export async function resolveNames(
  dashboards: readonly DesiredDashboard[],
  directory: NameDirectory | (() => NameDirectory),
  files: readonly SourceFile[],
  call: CallOptions = {},
  savedSearches: readonly DesiredSavedSearch[] = [],
): Promise<{
  dashboards: DesiredDashboard[];
  savedSearches: DesiredSavedSearch[];
  issues: FileIssue[];
}> {
  const copies = dashboards.map((d) => ({
    ...d,
    ...(d.filters ? { filters: [...d.filters] } : {}),
    tiles: d.tiles.map((t): DesiredTile => ({
      ...t,
      series: [...t.series],
      alerts: [...t.alerts],
    })),
  }));
  const searches = savedSearches.map((s) => ({ ...s, alerts: [...s.alerts] }));
  const refs = [...collectRefs(copies), ...searchRefs(searches)];
  if (refs.length === 0) return { dashboards: copies, savedSearches: searches, issues: [] };

  const lists = typeof directory === 'function' ? directory() : directory;
  const known = lists.knownWebhooks ?? new Map<string, string>();
  const needSources = refs.some((r) => r.kind === 'source');
  const needWebhooks = refs.some(
    (r) => r.kind === 'webhookId' || (r.kind === 'webhook' && !known.has(r.value)),
  );
  const [sources, webhooks] = await Promise.all([
    needSources ? orAbsent(lists.listSources?.(call)) : undefined,
    needWebhooks ? orAbsent(lists.listWebhooks?.(call)) : undefined,
  ]);

  const problems: [Ref, string][] = [];
  const issue = (ref: Ref, message: string) => problems.push([ref, message]);

  for (const ref of refs) {
    if (ref.kind === 'email') {
      if (lists.mode === 'open-source')
        issue(ref, 'email channels are for managed observability; /api/v2 takes webhooks only');
      continue;
    }
    if (ref.kind === 'webhookId') {
      // No list to check against (a backend without it): the service checks at write time.
      if (webhooks && !webhooks.some((w) => w.id === ref.value))
        issue(
          ref,
          `webhook id "${ref.value}" not found; ${existing(webhooks, (w) => `"${w.name ?? ''}" (${w.id})`)}`,
        );
      continue;
    }
    if (ref.kind === 'webhook' && known.has(ref.value)) {
      ref.apply(known.get(ref.value)!);
      continue;
    }
    const list = ref.kind === 'source' ? sources : webhooks;
    const noun = ref.kind;
    if (!list) {
      issue(ref, `${noun} names cannot be resolved here (no ${noun}s list); give the ${noun}'s id`);
      continue;
    }
    const matches = list.filter((e) => e.name === ref.value && e.id);
    if (matches.length === 1) ref.apply(matches[0].id!);
    else if (matches.length > 1)
      issue(
        ref,
        `${noun} name "${ref.value}" is ambiguous (ids ${matches.map((m) => m.id).join(', ')}); give the id instead`,
      );
    else
      issue(ref, `unknown ${noun} "${ref.value}"; ${existing(list, (e) => `"${e.name ?? ''}"`)}`);
  }
  const texts = new Map(files.map((f) => [f.file, f.text]));
  const issues: FileIssue[] = [];
  for (const [ref, message] of problems) {
    const text = texts.get(ref.file);
    issues.push({
      file: ref.file,
      ...(text !== undefined ? await locateIn(text, ref.path) : {}),
      path: formatPath(ref.path),
      message,
    });
  }
  issues.sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  );
  return { dashboards: copies, savedSearches: searches, issues };
}

/** True when any dashboard names a source or webhook (so a run needs the lists). */
export function usesNames(dashboards: readonly DesiredDashboard[]): boolean {
  const copies = dashboards.map((d) => ({
    ...d,
    tiles: [...d.tiles],
    ...(d.filters ? { filters: [...d.filters] } : {}),
  }));
  return collectRefs(copies).some((r) => r.kind === 'source' || r.kind === 'webhook');
}
