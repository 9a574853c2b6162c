/**
 * `dashboards pull`: what exists on the service, as dashboard files. Ids are stripped (tiles
 * are matched by name, alerts by tile and name), ownership tags are left out, alerts come
 * with their tiles, so `plan --adopt` of the pulled files shows adoption and no field changes.
 */
import { stringify } from 'yaml';
import { parseMarker, stripMarker } from '../alerts/marker';
import type { Alert, Dashboard } from '../schemas';
import type { DashboardFile, FileAlert } from './file-schema';
import { normalizeTile } from './normalize';
import { isReservedTag, ownerOf, ownerTag } from './ownership';
import { dashboardOf, tileOf } from './plan';

export interface PullFilter {
  /** Only dashboards with these keys (files derive keys from their path). */
  keys?: readonly string[];
  names?: readonly string[];
  /** Dashboards owned by another owner are never pulled. */
  owner: string;
}

export interface PulledFile {
  /** Relative path, `<key>.yaml`. */
  file: string;
  key: string;
  name: string;
  text: string;
}

/** A key from a name: lower case, runs of other characters as `-`. */
export function slugKey(name: string): string {
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
): PulledFile[] {
  const used = new Set<string>();
  const out: PulledFile[] = [];
  for (const d of [...dashboards].sort((a, b) => a.id.localeCompare(b.id))) {
    if (ownerTag(d.tags) && ownerOf(d.tags) !== filter.owner) continue;
    if (filter.names?.length && !filter.names.includes(d.name)) continue;
    let key = recordedKey(d, alerts) ?? slugKey(d.name);
    for (let n = 2; used.has(key); n++) key = `${slugKey(d.name)}-${n}`;
    if (filter.keys?.length && !filter.keys.includes(key)) continue;
    used.add(key);
    out.push({ file: `${key}.yaml`, key, name: d.name, text: toYaml(d, key, alerts) });
  }
  return out;
}

function toYaml(d: Dashboard, key: string, alerts: readonly Alert[]): string {
  const tags = d.tags.filter((t) => !isReservedTag(t) && t !== 'cloudops:alerts');
  const file: DashboardFile = {
    key,
    name: d.name,
    ...(tags.length > 0 ? { tags: [...new Set(tags)].sort() } : {}),
    tiles: d.tiles.map((t) => {
      const { name, x, y, w, h, asRatio } = normalizeTile(t);
      // The query as the service holds it: series (spec form) or config (current form).
      const raw = t as { series?: unknown[]; config?: unknown };
      type PulledTile = NonNullable<DashboardFile['tiles']>[number];
      const onTile = alerts.filter((a) => dashboardOf(a) === d.id && tileOf(a) === t.id);
      return {
        name,
        x,
        y,
        w,
        h,
        ...(asRatio ? { asRatio } : {}),
        ...(Array.isArray(raw.series) && raw.series.length > 0
          ? { series: raw.series as PulledTile['series'] }
          : raw.config
            ? { config: raw.config as PulledTile['config'] }
            : {}),
        ...(onTile.length > 0 ? { alerts: onTile.map(fileAlertOf) } : {}),
      };
    }),
  };
  return `# pulled from the service: ids stripped; plan with --adopt to take it over\n${stringify(file)}`;
}

function fileAlertOf(a: Alert): FileAlert {
  const message = stripMarker(a.message ?? undefined);
  return {
    name: a.name ?? '',
    threshold: a.threshold ?? 0,
    thresholdType: (a.thresholdType ?? 'above') as FileAlert['thresholdType'],
    interval: (a.interval ?? '5m') as FileAlert['interval'],
    channel: {
      type: a.channel?.type ?? 'webhook',
      ...(a.channel?.webhookId ? { webhookId: a.channel.webhookId } : {}),
    },
    ...(message !== '' ? { message } : {}),
  };
}
