/**
 * `dashboards pull`: what exists on the service, as dashboard files that plan back to no
 * changes. Ids are stripped (tiles are matched by key or name, alerts by tile and name),
 * ownership tags are left out, alerts come with their tiles. An owned dashboard keeps its key
 * and its tiles' keys (read back from what the service records: the identity hash, alert
 * markers) and the file it lives in; a hand-made one plans as adoption with `--adopt`.
 */
import { parse, stringify } from 'yaml';
import { parseMarker, stripMarker } from '../alerts/marker';
import type { Alert, Dashboard, DataSource, Tile, Webhook } from '../schemas';
import {
  dashboardKey,
  fileDashboardFilter,
  fileSelectItem,
  fileSeries,
  fileTileConfig,
  tileKey,
  type DashboardFile,
  type FileAlert,
  type FileDashboardFilter,
  type FileTile,
} from './file-schema';
import { ALERTS_TAG, identityTag, isReservedTag, ownerOf, ownerTag, taggedKey } from './ownership';
import { deriveKey } from './validate';
import { dashboardOf, tileOf } from './plan';

export interface PullFilter {
  /** Only dashboards with these keys (the key the file declares, or the one recovered). */
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

/** A dashboard file already in the folder pulled into: where a dashboard lives, and its header. */
export interface DeclaredFile {
  /** Relative path with `/` separators. */
  file: string;
  key: string;
  name?: string;
  /** YAML: the leading comment lines (the schema comment among them); JSON: its `$schema`. */
  header: string;
}

/** id -> name, for names exactly one entry has (an ambiguous name would not resolve back). */
export function uniqueNames(
  list: readonly { id?: string; name?: string | null }[] = [],
): Map<string, string> {
  const count = new Map<string, number>();
  for (const e of list) if (e.name) count.set(e.name, (count.get(e.name) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const e of list) if (e.id && e.name && count.get(e.name) === 1) out.set(e.id, e.name);
  return out;
}

/** An alert of a pulled dashboard as `pull --json` lists it: its state is shown, not written. */
export interface PulledAlert {
  id: string;
  name: string;
  /** The tile it watches; absent for an alert on a saved search. */
  tile?: string;
  /** ALERT, OK, INSUFFICIENT_DATA, DISABLED, PENDING, or what else the service says. */
  state: string | null;
}

export interface PulledFile {
  /** Relative path: the file that declares the dashboard, else `<key>.yaml`. */
  file: string;
  key: string;
  name: string;
  text: string;
  alerts: PulledAlert[];
}

export interface PullResult {
  files: PulledFile[];
  /** One line each: a key the service no longer knows, a dashboard another file declares. */
  warnings: string[];
}

/** What a file of the folder declares (its key and name), read leniently: `undefined` if none. */
export function declaredIn(file: string, text: string): DeclaredFile | undefined {
  let data: unknown;
  try {
    data = parse(text);
  } catch {
    return undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const { key, name, $schema } = data as Record<string, unknown>;
  const json = file.toLowerCase().endsWith('.json');
  const comments = /^(?:[ \t]*(?:#[^\n]*)?\n)*/.exec(text)?.[0] ?? '';
  return {
    file,
    key: typeof key === 'string' ? key : deriveKey(file),
    ...(typeof name === 'string' ? { name } : {}),
    header: json ? (typeof $schema === 'string' ? $schema : '') : comments.trimStart(),
  };
}

/** A key from a name: lower case, runs of other characters as `-`. */
function slugKey(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 100) || 'dashboard'
  );
}

/** Keys the alerts on a dashboard record (the identity tag is a hash: it cannot be reversed). */
function recordedKeys(d: Dashboard, alerts: readonly Alert[]): string[] {
  const keys: string[] = [];
  for (const a of alerts) {
    const m = parseMarker(a.message);
    if (dashboardOf(a) === d.id && m?.owner.kind === 'dashboard') keys.push(m.owner.dashboardKey);
  }
  return keys;
}

/**
 * The key an owned dashboard carries: the candidate (its key tag, alert markers, keys the
 * folder declares, the name's slug) whose hash is its identity tag. Undefined when none is: a
 * key too long for its tag (or written before it) that no alert records and no file declares
 * is known to the service only as its hash.
 */
function carriedKey(
  d: Dashboard,
  alerts: readonly Alert[],
  declared: readonly DeclaredFile[],
): string | undefined {
  const tag = ownerTag(d.tags);
  const candidates = [
    taggedKey(d.tags),
    ...recordedKeys(d, alerts),
    ...declared.map((f) => f.key),
    slugKey(d.name),
  ];
  return candidates.find((k) => k !== undefined && identityTag(k) === tag);
}

/** `<key>.yaml` when the path is safe and the loader reads it (no `.`-segments), else by id. */
export function fileFor(key: string, id: string, kind = 'dashboard'): string {
  const safe =
    dashboardKey.safeParse(key).success && !key.split('/').some((p) => p.startsWith('.'));
  return safe ? `${key}.yaml` : `${kind}-${id}.yaml`;
}

export function pullFiles(
  dashboards: readonly Dashboard[],
  alerts: readonly Alert[],
  filter: PullFilter,
  names: PullNames = {},
  declared: readonly DeclaredFile[] = [],
): PullResult {
  const ids: Ids = { sources: uniqueNames(names.sources), webhooks: uniqueNames(names.webhooks) };
  const used = new Set<string>();
  const result: PullResult = { files: [], warnings: [] };
  for (const d of [...dashboards].sort((a, b) => a.id.localeCompare(b.id))) {
    const owned = ownerTag(d.tags) !== undefined;
    if (owned && ownerOf(d.tags) !== filter.owner) continue;
    if (filter.names?.length && !filter.names.includes(d.name)) continue;
    const carried = owned ? carriedKey(d, alerts, declared) : undefined;
    let key = carried ?? slugKey(d.name);
    for (let n = 2; used.has(key); n++) key = `${slugKey(d.name)}-${n}`;
    if (filter.keys?.length && !filter.keys.includes(key)) continue;
    used.add(key);
    if (owned && carried === undefined)
      result.warnings.push(
        `the key of "${d.name}" (${d.id}) is not on the service (only its hash): written as "${key}", which plan would create anew; set \`key:\` to its key, or pull into the folder that declares it`,
      );
    const home = declared.find((f) => f.key === key);
    const file = home?.file ?? fileFor(key, d.id);
    const twin = declared.find((f) => f !== home && (f.file === file || f.name === d.name));
    if (twin)
      result.warnings.push(
        `"${d.name}" pulled into ${file} is already declared by ${twin.file} (key "${twin.key}"): the next plan would see both`,
      );
    const text = render(fileOf(d, key, file, alerts, ids), file, home?.header, owned);
    result.files.push({ file, key, name: d.name, text, alerts: alertsOf(d, alerts) });
  }
  for (const key of filter.keys ?? [])
    if (!used.has(key))
      result.warnings.push(
        `--target "${key}": no dashboard of owner "${filter.owner}" has this key`,
      );
  return result;
}

function alertsOf(d: Dashboard, alerts: readonly Alert[]): PulledAlert[] {
  const tileNames = new Map(d.tiles.map((t) => [t.id, t.name]));
  return alerts
    .filter((a) => dashboardOf(a) === d.id)
    .map((a) => ({
      id: a.id,
      name: a.name ?? '',
      tile: tileNames.get(tileOf(a) ?? '') ?? tileOf(a) ?? '',
      state: a.state ?? null,
    }));
}

export interface Ids {
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

/** The file's value: the key left out when the path gives it, tile keys from alert markers. */
function fileOf(
  d: Dashboard,
  key: string,
  file: string,
  alerts: readonly Alert[],
  ids: Ids,
): DashboardFile {
  const tags = d.tags.filter((t) => !isReservedTag(t) && t !== ALERTS_TAG);
  const onDashboard = alerts.filter((a) => dashboardOf(a) === d.id);
  return {
    ...(deriveKey(file) === key ? {} : { key }),
    name: d.name,
    ...(tags.length > 0 ? { tags: [...new Set(tags)].sort() } : {}),
    ...(d.filters?.length
      ? {
          filters: d.filters.map(
            (f) => named(pick(f, fileDashboardFilter.shape), ids) as FileDashboardFilter,
          ),
        }
      : {}),
    tiles: d.tiles.map((t) => {
      const onTile = onDashboard.filter((a) => tileOf(a) === t.id);
      const tileKey = keyOfTile(t, key, onTile);
      return {
        ...(tileKey !== undefined ? { key: tileKey } : {}),
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
}

/** A tile's key as its alerts' markers record it (a keyed tile's alerts carry the key, not the name). */
function keyOfTile(t: Tile, dashboardKey: string, onTile: readonly Alert[]): string | undefined {
  for (const a of onTile) {
    const m = parseMarker(a.message);
    if (m?.owner.kind !== 'dashboard' || m.owner.dashboardKey !== dashboardKey) continue;
    if (m.owner.tileName !== t.name && tileKey.safeParse(m.owner.tileName).success)
      return m.owner.tileName;
  }
  return undefined;
}

/**
 * The file's text. A file the dashboard lives in keeps its header (the schema comment, or
 * JSON's `$schema`) and its format; a new one gets the schema comment the examples carry.
 */
function render(value: DashboardFile, file: string, header: string | undefined, owned: boolean) {
  const root = '../'.repeat(file.split('/').length - 1) || './';
  if (file.toLowerCase().endsWith('.json'))
    return `${JSON.stringify({ $schema: header || `${root}.schema.json`, ...value }, null, 2)}\n`;
  const adopt = owned
    ? ''
    : '# pulled from a hand-made dashboard: plan with --adopt to take it over\n';
  return `${header ?? `# yaml-language-server: $schema=${root}.schema.json\n${adopt}`}${stringify(value)}`;
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

/**
 * An alert as its file says it: the fields the file format has, defaults left out (1 window in
 * a row, offset 0), the webhook by its name when that is unique. The state is never written.
 */
export function fileAlertOf(a: Alert, ids: Ids): FileAlert {
  const message = stripMarker(a.message ?? undefined);
  const windows = a.numConsecutiveWindows ?? 1;
  return {
    name: a.name ?? '',
    threshold: a.threshold ?? 0,
    thresholdType: (a.thresholdType ?? 'above') as FileAlert['thresholdType'],
    interval: (a.interval ?? '5m') as FileAlert['interval'],
    ...(windows > 1 ? { numConsecutiveWindows: windows } : {}),
    ...(a.scheduleOffsetMinutes ? { scheduleOffsetMinutes: a.scheduleOffsetMinutes } : {}),
    ...(a.scheduleStartAt ? { scheduleStartAt: a.scheduleStartAt } : {}),
    channel: fileChannelOf(a.channel, ids),
    ...(a.thresholdMax != null ? { thresholdMax: a.thresholdMax } : {}),
    ...(message !== '' ? { message } : {}),
  };
}

function fileChannelOf(channel: Alert['channel'], ids: Ids): FileAlert['channel'] {
  const hook = channel?.webhookId ?? undefined;
  const recipients = channel?.emailRecipients ?? [];
  return {
    type: channel?.type ?? 'webhook',
    ...(hook && ids.webhooks.has(hook)
      ? { webhook: ids.webhooks.get(hook)! }
      : hook
        ? { webhookId: hook }
        : {}),
    ...(recipients.length > 0 ? { emailRecipients: recipients } : {}),
  };
}
