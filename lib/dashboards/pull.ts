/**
 * `dashboards pull`: what exists on the service, as dashboard files. Ids are stripped (tiles
 * are matched by name, alerts by tile and name), ownership tags are left out, alerts come
 * with their tiles, so `plan --adopt` of the pulled files shows adoption and no field changes.
 */
import { stringify } from 'yaml';
import { parseMarker, stripMarker } from '../alerts/marker';
import type { Alert, Dashboard, DataSource, Tile, Webhook } from '../schemas';
import {
  fileSelectItem,
  fileSeries,
  fileTileConfig,
  type DashboardFile,
  type FileAlert,
  type FileTile,
} from './file-schema';
import { isReservedTag, ownerOf, ownerTag } from './ownership';
import { dashboardOf, tileOf } from './plan';

export interface PullFilter {
  /** Only dashboards with these keys (files derive keys from their path). */
  keys?: readonly string[];
  names?: readonly string[];
  /** Dashboards owned by another owner are never pulled. */
  owner: string;
}

/** Sources and webhooks of the service: ids whose name is unique are written as names. */
export interface PullNames {
  sources?: readonly DataSource[];
  webhooks?: readonly Webhook[];
}

/** id -> name, for names exactly one entry has (an ambiguous name would not resolve back). */
function uniqueNames(
  list: readonly { id?: string; name?: string | null }[] = [],
): Map<string, string> {
  const count = new Map<string, number>();
  for (const e of list) if (e.name) count.set(e.name, (count.get(e.name) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const e of list) if (e.id && e.name && count.get(e.name) === 1) out.set(e.id, e.name);
  return out;
}

export interface PulledFile {
  /** Relative path, `<key>.yaml`. */
  file: string;
  key: string;
  name: string;
  text: string;
}

/** A key from a name: lower case, runs of other characters as `-`. */
function slugKey(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 100) || 'dashboard'
  );
}

/** The key a dashboard's alerts record (owned dashboards: the hash alone cannot be reversed). */
function recordedKey(d: Dashboard, alerts: readonly Alert[]): string | undefined {
  for (const a of alerts) {
    const m = parseMarker(a.message);
    if (dashboardOf(a) === d.id && m?.owner.kind === 'dashboard') return m.owner.dashboardKey;
  }
  return undefined;
}

export function pullFiles(
  dashboards: readonly Dashboard[],
  alerts: readonly Alert[],
  filter: PullFilter,
  names: PullNames = {},
): PulledFile[] {
  const ids: Ids = { sources: uniqueNames(names.sources), webhooks: uniqueNames(names.webhooks) };
  const used = new Set<string>();
  const out: PulledFile[] = [];
  for (const d of [...dashboards].sort((a, b) => a.id.localeCompare(b.id))) {
    if (ownerTag(d.tags) && ownerOf(d.tags) !== filter.owner) continue;
    if (filter.names?.length && !filter.names.includes(d.name)) continue;
    let key = recordedKey(d, alerts) ?? slugKey(d.name);
    for (let n = 2; used.has(key); n++) key = `${slugKey(d.name)}-${n}`;
    if (filter.keys?.length && !filter.keys.includes(key)) continue;
    used.add(key);
    out.push({ file: `${key}.yaml`, key, name: d.name, text: toYaml(d, key, alerts, ids) });
  }
  return out;
}

interface Ids {
  sources: Map<string, string>;
  webhooks: Map<string, string>;
}

/** `sourceId: <id>` -> `source: <name>` when the name is unique. */
function named(q: Record<string, unknown>, ids: Ids): Record<string, unknown> {
  const name = typeof q.sourceId === 'string' ? ids.sources.get(q.sourceId) : undefined;
  if (name === undefined) return q;
  const { sourceId: _id, ...rest } = q;
  return { ...rest, source: name };
}

function toYaml(d: Dashboard, key: string, alerts: readonly Alert[], ids: Ids): string {
  const tags = d.tags.filter((t) => !isReservedTag(t) && t !== 'cloudops:alerts');
  const file: DashboardFile = {
    key,
    name: d.name,
    ...(tags.length > 0 ? { tags: [...new Set(tags)].sort() } : {}),
    tiles: d.tiles.map((t) => {
      const onTile = alerts.filter((a) => dashboardOf(a) === d.id && tileOf(a) === t.id);
      return {
        name: t.name,
        x: t.x,
        y: t.y,
        w: t.w,
        h: t.h,
        ...query(t, ids),
        ...(onTile.length > 0 ? { alerts: onTile.map((a) => fileAlertOf(a, ids)) } : {}),
      };
    }),
  };
  return `# pulled from the service: ids stripped; plan with --adopt to take it over\n${stringify(file)}`;
}

/** Only what the file format can say, so the pulled file validates (strict objects). */
function pick(value: unknown, shape: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (value === null || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value))
    // Empty values say nothing the file must say (and some kinds refuse them, e.g. groupBy: []).
    if (
      k in shape &&
      v !== null &&
      v !== undefined &&
      v !== '' &&
      !(Array.isArray(v) && v.length === 0)
    )
      out[k] = v;
  return out;
}

/** The tile's query in the form the service answered with: `series` (spec) or `config`. */
function query(t: Tile, ids: Ids): Partial<FileTile> {
  const series = (t as { series?: unknown }).series;
  const config = (t as { config?: unknown }).config;
  if (Array.isArray(series) && series.length > 0) {
    return {
      ...(t.asRatio ? { asRatio: true } : {}),
      series: series.map((s) => named(pick(s, fileSeries.shape), ids)) as FileTile['series'],
    };
  }
  if (config && typeof config === 'object') {
    const c = named(pick(config, fileTileConfig.shape), ids);
    if (Array.isArray(c.select))
      c.select = c.select.map((item: unknown) =>
        typeof item === 'string' ? item : pick(item, fileSelectItem.shape),
      );
    return { config: c as FileTile['config'] };
  }
  return {};
}

function fileAlertOf(a: Alert, ids: Ids): FileAlert {
  const message = stripMarker(a.message ?? undefined);
  const hook = a.channel?.webhookId ?? undefined;
  return {
    name: a.name ?? '',
    threshold: a.threshold ?? 0,
    thresholdType: (a.thresholdType ?? 'above') as FileAlert['thresholdType'],
    interval: (a.interval ?? '5m') as FileAlert['interval'],
    channel: {
      type: a.channel?.type ?? 'webhook',
      ...(hook && ids.webhooks.has(hook)
        ? { webhook: ids.webhooks.get(hook)! }
        : hook
          ? { webhookId: hook }
          : {}),
    },
    ...(a.thresholdMax != null ? { thresholdMax: a.thresholdMax } : {}),
    ...(message !== '' ? { message } : {}),
  };
}
