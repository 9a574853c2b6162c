/**
 * `dashboards pull` for the webhooks and saved searches cloudops owns (of the pulling owner),
 * as `kind:` files that plan back to no changes. A webhook's URL, headers and query parameters
 * are written as the variables the marker recorded (the file that created it named them), never
 * as values; a search's source is written by name, its alerts like tile alerts. Hand-made ones
 * are left on the service (a webhook of the same name would be a conflict, not an adoption).
 */
import { stringify } from 'yaml';
import { parseMarker } from '../alerts/marker';
import { alertLinks, type Alert, type SavedSearch, type Webhook } from '../schemas';
import type { SavedSearchFile, WebhookFile } from './kinds-schema';
import { isReservedTag, ownerOf, ownerTag, taggedKey, identityTag } from './ownership';
import { fileAlertOf, fileFor, type DeclaredFile, type Ids, type PulledFile } from './pull';
import { deriveKey } from './validate';
import { descriptionWithoutMarker, parseWebhookMarker } from './webhook-marker';

export interface ObjectsPull {
  webhooks: readonly Webhook[];
  savedSearches: readonly SavedSearch[];
  alerts: readonly Alert[];
}

export function pullObjects(
  lists: ObjectsPull,
  filter: { owner: string; keys?: readonly string[]; names?: readonly string[] },
  ids: Ids,
  declared: readonly DeclaredFile[],
): PulledFile[] {
  const wanted = (key: string, name: string) =>
    (!filter.keys?.length || filter.keys.includes(key)) &&
    (!filter.names?.length || filter.names.includes(name));
  const out: PulledFile[] = [];
  const place = (key: string, id: string, kind: string) =>
    declared.find((f) => f.key === key)?.file ?? fileFor(key, id, kind);
  for (const w of lists.webhooks) {
    const m = parseWebhookMarker(w.description);
    if (!m || m.owner !== filter.owner || !wanted(m.key, w.name ?? '')) continue;
    const file = place(m.key, w.id, 'webhook');
    out.push({
      file,
      key: m.key,
      name: w.name ?? '',
      text: render(webhookFileOf(w, file), file),
      alerts: [],
    });
  }
  for (const s of lists.savedSearches) {
    const tags = s.tags ?? [];
    if (!ownerTag(tags) || ownerOf(tags) !== filter.owner) continue;
    const onSearch = lists.alerts.filter((a) => alertLinks(a).savedSearchId === s.id);
    // A key too long for its tag is recovered from its alerts' markers or the folder's files.
    const candidates = [
      taggedKey(tags),
      ...onSearch
        .map((a) => parseMarker(a.message)?.owner)
        .map((o) => (o?.kind === 'search' ? o.searchKey : undefined)),
      ...declared.map((f) => f.key),
    ];
    const key = candidates.find((k) => k !== undefined && identityTag(k) === ownerTag(tags));
    if (key === undefined || !wanted(key, s.name ?? '')) continue;
    const file = place(key, s.id, 'saved-search');
    const value = searchFileOf(s, key, file, onSearch, ids);
    const alerts = onSearch.map((a) => ({ id: a.id, name: a.name ?? '', state: a.state ?? null }));
    out.push({ file, key, name: s.name ?? '', text: render(value, file), alerts });
  }
  return out;
}

const keyField = (key: string, file: string) => (deriveKey(file) === key ? {} : { key });

function webhookFileOf(w: Webhook, file: string): WebhookFile {
  const m = parseWebhookMarker(w.description)!;
  const t = m.templates ?? {};
  const description = descriptionWithoutMarker(w.description);
  return {
    kind: 'webhook',
    ...keyField(m.key, file),
    name: w.name ?? '',
    service: (w.service ?? 'generic') as WebhookFile['service'],
    // Never the value: the variable the creating file named (a made-up one if none was kept).
    url: t.url ?? `\${${m.key.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}_URL}`,
    ...(description !== '' ? { description } : {}),
    ...(w.body ? { body: w.body } : {}),
    ...(t.headers ? { headers: t.headers } : {}),
    ...(t.queryParams ? { queryParams: t.queryParams } : {}),
  };
}

function searchFileOf(
  s: SavedSearch,
  key: string,
  file: string,
  alerts: readonly Alert[],
  ids: Ids,
): SavedSearchFile {
  const sourceName = s.sourceId ? ids.sources.get(s.sourceId) : undefined;
  const tags = (s.tags ?? []).filter((t) => !isReservedTag(t));
  const filters = (s.filters ?? []).flatMap((f) =>
    typeof f.condition === 'string' ? [{ condition: f.condition }] : [],
  );
  const lang =
    s.whereLanguage === 'sql' || s.whereLanguage === 'lucene' ? s.whereLanguage : undefined;
  return {
    kind: 'savedSearch',
    ...keyField(key, file),
    name: s.name ?? '',
    source: sourceName ?? s.sourceId ?? '',
    ...(s.select ? { select: s.select } : {}),
    ...(s.where ? { where: s.where } : {}),
    ...(lang && lang !== 'lucene' ? { whereLanguage: lang } : {}),
    ...(s.orderBy ? { orderBy: s.orderBy } : {}),
    ...(tags.length > 0 ? { tags: [...new Set(tags)].sort() } : {}),
    ...(filters.length > 0 ? { filters } : {}),
    ...(alerts.length > 0 ? { alerts: alerts.map((a) => fileAlertOf(a, ids)) } : {}),
  };
}

function render(value: WebhookFile | SavedSearchFile, file: string): string {
  const root = '../'.repeat(file.split('/').length - 1) || './';
  const note =
    value.kind === 'webhook'
      ? '# url, headers and queryParams name variables or secrets (their values are never pulled)\n'
      : '';
  return `# yaml-language-server: $schema=${root}.schema.json\n${note}${stringify(value)}`;
}
