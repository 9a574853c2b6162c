/**
 * Validates every file and collects every problem before anything is written: syntax and
 * limits, the zod schema (types, bounds, tag limits, known aggFn/type, alert fields), then the
 * rules a schema cannot state (x + w, overlaps, unique names and keys, one series type per
 * tile, which fields each tile kind takes, threshold ranges, reserved tags) and duplicate
 * identities across files. Everything here is offline; names of sources and webhooks are
 * resolved against the service afterwards (resolve.ts).
 */
import type * as z from 'zod/mini';
import { DASHBOARD_LIMITS, INTERVAL_MINUTES } from '../schemas';
import { formatPath } from '../format-issues';
import {
  dashboardFile,
  dashboardKey,
  QUANTILE_LEVELS,
  type DashboardFile,
  type FileTile,
} from './file-schema';
import { registerSecret } from '../redact';
import {
  FILE_KINDS,
  kindOf,
  savedSearchFile,
  webhookFile,
  type FileKind,
  type SavedSearchFile,
  type SecretRef,
  type WebhookFile,
} from './kinds-schema';
import { isReservedTag } from './ownership';
import { isSecretRef, resolveSecretRefs, type SecretReads } from './webhook-secrets';
import { parseFile, substituteVars, type ParsedFile } from './parse';
import type {
  DesiredDashboard,
  DesiredTile,
  DesiredWebhook,
  FileIssue,
  FolderObjects,
  SourceFile,
  TemplateValue,
} from './types';

export interface ValidateOptions {
  /** Values for `${NAME}` placeholders in the files. */
  readonly vars?: Readonly<Record<string, string>>;
  /** The secrets webhook files reference, read beforehand; absent: offline, shapes only. */
  readonly secrets?: SecretReads;
  /**
   * Where a webhook's url, headers and query parameters may come from. The deployed sync's
   * variables sit in its environment and template, so there only secret references are taken.
   * @default 'variables-or-secrets'
   */
  readonly webhookValues?: 'variables-or-secrets' | 'secrets';
}

export interface ValidationResult {
  dashboards: DesiredDashboard[];
  issues: FileIssue[];
  /** The folder's `kind: webhook` and `kind: savedSearch` files. */
  objects: FolderObjects;
}

/** `team/checkout.yaml` -> `team/checkout`: the identity of a file without an explicit key. */
export function deriveKey(file: string): string {
  return file
    .replace(/\\/g, '/')
    .replace(/^\.\//, '')
    .replace(/\.(ya?ml|json)$/i, '');
}

export function formatFileIssue(issue: FileIssue): string {
  const where = issue.line
    ? `${issue.file}:${issue.line}${issue.column ? `:${issue.column}` : ''}`
    : issue.file;
  return `${where} ${issue.path ? `${issue.path}: ` : ''}${issue.message}`;
}

/**
 * localeCompare's order of file names, with one collator built on first use: building it loads
 * the ICU collation data (about 70 M instructions), which a cold start that reads no file skips.
 */
let fileCollator: Intl.Collator | undefined;
export const compareFiles = (a: string, b: string): number =>
  (fileCollator ??= new Intl.Collator()).compare(a, b);

export async function validateFiles(
  files: readonly SourceFile[],
  options: ValidateOptions = {},
): Promise<ValidationResult> {
  return validateParsed(await Promise.all(files.map(parseFile)), options);
}

/**
 * validateFiles for files parsed already (the loader parses each file once: it reads the
 * secrets the webhook files name before validating). Substitution replaces in place.
 */
export function validateParsed(
  files: readonly ParsedFile[],
  options: ValidateOptions = {},
): ValidationResult {
  const issues: FileIssue[] = [];
  const dashboards: DesiredDashboard[] = [];
  const objects: FolderObjects = { webhooks: [], savedSearches: [] };
  // Keys are unique per kind: each kind is its own list on the service.
  const seenByKind = new Map<FileKind, Map<string, string>>();

  for (const parsed of [...files].sort((a, b) => compareFiles(a.file, b.file))) {
    if (parsed.issues.length > 0) {
      issues.push(...parsed.issues);
      continue;
    }
    const at = (path: readonly PropertyKey[], message: string): FileIssue => ({
      file: parsed.file,
      ...parsed.locate(path),
      path: formatPath(path),
      message,
    });
    const kind = kindOf(parsed.value);
    if (kind === undefined) {
      issues.push(at(['kind'], `unknown kind; expected ${FILE_KINDS.join(', ')}`));
      continue;
    }
    // Before substitution: a secret must be written as a variable, never as its value.
    const fileIssues: FileIssue[] =
      kind === 'webhook' ? literalSecretIssues(parsed.value, at, options.webhookValues) : [];
    const templates = kind === 'webhook' ? secretTemplates(parsed.value) : {};
    // A place refused above needs no second line saying its variable has no value.
    const refused = new Set(fileIssues.map((i) => i.path));
    const value = substituteVars(
      parsed.value,
      options.vars ?? {},
      (path, name) => {
        const issue = at(path, `\${${name}} is not defined (pass it as a variable)`);
        if (!refused.has(issue.path)) fileIssues.push(issue);
      },
      parsed.shared ?? false,
    );
    if (kind === 'webhook') fileIssues.push(...resolveSecretRefs(value, options.secrets, at));
    let seen = seenByKind.get(kind);
    if (!seen) seenByKind.set(kind, (seen = new Map<string, string>()));
    if (kind !== 'dashboard') {
      const checked = kindFile(kind, value, at);
      fileIssues.push(...checked.issues);
      const key = checked.key ?? deriveKey(parsed.file);
      fileIssues.push(...keyIssues(checked.key, key, parsed.file, seen, at, !!checked.data));
      fileIssues.sort(byPlace);
      issues.push(...fileIssues);
      if (checked.data && fileIssues.length === 0)
        addObject(objects, checked.data, key, parsed.file, templates);
      continue;
    }
    fileIssues.push(...semanticIssues(value, at), ...serviceIssues(value, at));
    const result = dashboardFile.safeParse(value);
    if (!result.success) fileIssues.push(...schemaIssues(result.error.issues, at));

    const data = result.success ? result.data : undefined;
    const key = data?.key ?? deriveKey(parsed.file);
    fileIssues.push(...keyIssues(data?.key, key, parsed.file, seen, at, data !== undefined));
    fileIssues.sort(byPlace);
    issues.push(...fileIssues);
    if (data && fileIssues.length === 0) dashboards.push(toDesired(data, key, parsed.file));
  }
  return { dashboards, issues, objects };
}

/** The write-only parts of a webhook (and its URL, often a credential) come from variables or secrets. */
function literalSecretIssues(
  raw: unknown,
  at: At,
  from: ValidateOptions['webhookValues'],
): FileIssue[] {
  if (!isRecord(raw)) return [];
  const out: FileIssue[] = [];
  const check = (path: PropertyKey[], v: unknown) => {
    if (typeof v === 'string' && from === 'secrets')
      out.push(
        at(
          path,
          'the sync function has no value for a variable here: write it as { secret: <id>, key?: <field> } (Secrets Manager)',
        ),
      );
    else if (typeof v === 'string' && !VARIABLE.test(v))
      out.push(
        at(
          path,
          'write it as a ${VARIABLE} or { secret: <id> }: a literal value would sit in the repository',
        ),
      );
  };
  check(['url'], raw.url);
  for (const field of ['headers', 'queryParams'] as const) {
    const map = raw[field];
    if (isRecord(map)) for (const [k, v] of Object.entries(map)) check([field, k], v);
  }
  return out;
}
/** The URL, headers and query parameters as written (a copy: substitution replaces in place). */
function secretTemplates(raw: unknown): DesiredWebhook['templates'] {
  if (!isRecord(raw)) return {};
  const written = (x: unknown) => typeof x === 'string' || isSecretRef(x);
  const map = (v: unknown) =>
    isRecord(v)
      ? Object.fromEntries(
          Object.entries(v).flatMap(([k, x]) => (written(x) ? [[k, copyOf(x)]] : [])),
        )
      : undefined;
  const headers = map(raw.headers) as Record<string, TemplateValue> | undefined;
  const queryParams = map(raw.queryParams) as Record<string, TemplateValue> | undefined;
  return {
    ...(written(raw.url) ? { url: copyOf(raw.url) as TemplateValue } : {}),
    ...(headers ? { headers } : {}),
    ...(queryParams ? { queryParams } : {}),
  };
}

const copyOf = (x: unknown) => (isSecretRef(x) ? { ...x } : x);

const VARIABLE = /(?<!\$)\$\{[A-Za-z_][A-Za-z0-9_]*\}/;

interface KindFile {
  issues: FileIssue[];
  key?: string;
  data?: WebhookFile | SavedSearchFile;
}

/** A webhook or saved-search file: its schema and the rules across its fields. */
function kindFile(kind: Exclude<FileKind, 'dashboard'>, value: unknown, at: At): KindFile {
  const schema = kind === 'webhook' ? webhookFile : savedSearchFile;
  const result = schema.safeParse(value);
  const issues = result.success ? [] : schemaIssues(result.error.issues, at);
  if (isRecord(value) && kind === 'webhook') issues.push(...webhookRules(value, at));
  if (isRecord(value) && kind === 'savedSearch') {
    issues.push(...tagIssues(value, at));
    if (Array.isArray(value.alerts)) {
      const sink: Sink = { at, out: [] };
      alertRules(value.alerts, undefined, ['alerts'], sink);
      issues.push(...sink.out);
    }
  }
  const key = isRecord(value) && typeof value.key === 'string' ? value.key : undefined;
  return {
    issues,
    ...(key !== undefined ? { key } : {}),
    ...(result.success ? { data: result.data } : {}),
  };
}

/** slack posts a fixed payload: it refuses body, headers and queryParams (the API's rule). */
function webhookRules(value: Record<string, unknown>, at: At): FileIssue[] {
  const out: FileIssue[] = [];
  if (value.service === 'slack')
    for (const field of ['body', 'headers', 'queryParams'])
      if (value[field] !== undefined)
        out.push(at([field], 'not supported for the slack webhook service'));
  // A variable left unreplaced is reported as undefined already.
  const url = value.url;
  if (typeof url === 'string' && !VARIABLE.test(url) && !/^https?:\/\/[^\s/]+/.test(url))
    out.push(at(['url'], 'expected an http(s) URL'));
  return out;
}

function addObject(
  objects: FolderObjects,
  data: WebhookFile | SavedSearchFile,
  key: string,
  sourceFile: string,
  templates: DesiredWebhook['templates'],
): void {
  if (data.kind === 'webhook') {
    const { kind: _k, $schema: _s, key: _key, url, headers, queryParams, ...fields } = data;
    // Every reference was replaced by its value before the schema saw the file.
    const text = (v: string | SecretRef) => (typeof v === 'string' ? v : '');
    const texts = (m: Record<string, string | SecretRef> | undefined) =>
      m && Object.fromEntries(Object.entries(m).map(([k, v]) => [k, text(v)]));
    const values = { url: text(url), headers: texts(headers), queryParams: texts(queryParams) };
    // Resolved variable and secret values: masked wherever a text could echo them.
    registerSecret(values.url);
    for (const v of [
      ...Object.values(values.headers ?? {}),
      ...Object.values(values.queryParams ?? {}),
    ])
      registerSecret(v);
    objects.webhooks.push({
      key,
      sourceFile,
      ...fields,
      url: values.url,
      ...(values.headers ? { headers: values.headers } : {}),
      ...(values.queryParams ? { queryParams: values.queryParams } : {}),
      templates,
    });
    return;
  }
  const { kind: _k, $schema: _s, key: _key, tags, alerts, ...fields } = data;
  objects.savedSearches.push({
    key,
    sourceFile,
    ...fields,
    tags: [...new Set(tags ?? [])].sort(),
    alerts: alerts ?? [],
  });
}

const byPlace = (a: FileIssue, b: FileIssue) =>
  (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);

/** A key derived from the path must be valid, and a key is used by one file of its kind. */
function keyIssues(
  written: string | undefined,
  key: string,
  file: string,
  seen: Map<string, string>,
  at: At,
  parsed = true,
): FileIssue[] {
  const out: FileIssue[] = [];
  if (parsed && written === undefined && !dashboardKey.safeParse(key).success)
    out.push(
      at(
        [],
        `the file path gives the key "${key}", which is not a valid key: set \`key:\` in the file`,
      ),
    );
  const first = seen.get(key);
  if (first !== undefined)
    out.push(
      at(written !== undefined ? ['key'] : [], `duplicate key "${key}": also used by ${first}`),
    );
  else seen.set(key, file);
  return out;
}

function toDesired(data: DashboardFile, key: string, sourceFile: string): DesiredDashboard {
  return {
    key,
    sourceFile,
    name: data.name,
    tags: [...new Set(data.tags ?? [])].sort(),
    tiles: (data.tiles ?? []).map((t) => desiredTile(t)),
    ...(data.filters ? { filters: data.filters } : {}),
    ...(data.services ? { services: data.services } : {}),
  };
}

function desiredTile(t: FileTile): DesiredTile {
  const config =
    t.config ??
    (t.markdown !== undefined
      ? { displayType: 'markdown' as const, markdown: t.markdown }
      : undefined);
  return {
    ...(t.key !== undefined ? { key: t.key } : {}),
    name: t.name,
    x: t.x,
    y: t.y,
    w: t.w,
    h: t.h,
    asRatio: t.asRatio ?? false,
    series: t.series ?? [],
    ...(config ? { config } : {}),
    alerts: t.alerts ?? [],
  };
}

type At = (path: readonly PropertyKey[], message: string) => FileIssue;

function schemaIssues(zodIssues: readonly z.core.$ZodIssue[], at: At): FileIssue[] {
  return zodIssues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => at([...issue.path, k], 'unknown field'));
    }
    const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
    return [at(issue.path, missing ? 'required' : issue.message)];
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Rules across fields. Tolerant of bad shapes (the schema reports those), so all problems show at once. */
function semanticIssues(value: unknown, at: At): FileIssue[] {
  const out: FileIssue[] = [];
  if (!isRecord(value)) return out;
  out.push(...tagIssues(value, at));
  if (Array.isArray(value.filters))
    value.filters.forEach((f: unknown, i) => {
      if (!isRecord(f)) return;
      if (f.source !== undefined && f.sourceId !== undefined)
        out.push(at(['filters', i, 'source'], 'give sourceId or source (a name), not both'));
      else if (f.source === undefined && f.sourceId === undefined)
        out.push(at(['filters', i], 'sourceId (or source: <name>) is required'));
    });
  if (!Array.isArray(value.tiles)) return out;
  const names = new Map<string, number>();
  const keys = new Map<string, number>();
  const boxes: { i: number; name: string; x: number; y: number; w: number; h: number }[] = [];
  value.tiles.forEach((tile: unknown, i) => {
    if (!isRecord(tile)) return;
    if (typeof tile.name === 'string') {
      const first = names.get(tile.name);
      if (first !== undefined)
        out.push(
          at(['tiles', i, 'name'], `duplicate tile name "${tile.name}" (also tiles[${first}])`),
        );
      else names.set(tile.name, i);
    }
    const { x, y, w, h } = tile;
    if (isNum(x) && isNum(w) && x + w > DASHBOARD_LIMITS.gridColumns) {
      out.push(
        at(
          ['tiles', i, 'w'],
          `x + w must be <= ${DASHBOARD_LIMITS.gridColumns} (x ${x} + w ${w} = ${x + w})`,
        ),
      );
    }
    if (isNum(x) && isNum(y) && isNum(w) && isNum(h) && w > 0 && h > 0) {
      const name = typeof tile.name === 'string' ? tile.name : `tiles[${i}]`;
      for (const other of boxes) {
        if (x < other.x + other.w && other.x < x + w && y < other.y + other.h && other.y < y + h) {
          out.push(
            at(['tiles', i], `tile "${name}" overlaps tile "${other.name}" (tiles[${other.i}])`),
          );
        }
      }
      boxes.push({ i, name, x, y, w, h });
    }
    if (Array.isArray(tile.series)) {
      const types = tile.series
        .map((s: unknown) => (isRecord(s) ? s.type : undefined))
        .filter((t) => typeof t === 'string');
      if (new Set(types).size > 1) {
        out.push(
          at(
            ['tiles', i, 'series'],
            `all series of one tile must share a type (found ${[...new Set(types)].join(', ')})`,
          ),
        );
      }
    }
    if (typeof tile.key === 'string') {
      const first = keys.get(tile.key);
      if (first !== undefined)
        out.push(
          at(['tiles', i, 'key'], `duplicate tile key "${tile.key}" (also tiles[${first}])`),
        );
      else keys.set(tile.key, i);
    }
    out.push(...tileRules(tile, i, at));
  });
  return out;
}

/** User tags: none reserved for the ownership marker, none twice. */
function tagIssues(value: Record<string, unknown>, at: At): FileIssue[] {
  const out: FileIssue[] = [];
  if (!Array.isArray(value.tags)) return out;
  const tags = new Set<string>();
  value.tags.forEach((tag: unknown, i) => {
    if (typeof tag !== 'string') return;
    if (isReservedTag(tag))
      out.push(at(['tags', i], `"${tag}" is reserved for the cloudops ownership marker`));
    if (tags.has(tag)) out.push(at(['tags', i], `duplicate tag "${tag}"`));
    tags.add(tag);
  });
  return out;
}

/** `services:` lists each service once (whether each is configured is checked by plan/apply). */
function serviceIssues(value: unknown, at: At): FileIssue[] {
  if (!isRecord(value) || !Array.isArray(value.services)) return [];
  const out: FileIssue[] = [];
  const seen = new Set<string>();
  value.services.forEach((id: unknown, i) => {
    if (typeof id !== 'string') return;
    if (seen.has(id)) out.push(at(['services', i], `service ${id} is listed twice`));
    seen.add(id);
  });
  return out;
}

const FORMS = ['series', 'config', 'markdown'] as const;
const CHART_TYPES = new Set(['line', 'stacked_bar', 'number']);

/*
 * The rules below run for every tile, series and select item of every file: they take the
 * issue list and a base path instead of building a closure per node (validating 1,000 files
 * is a bench figure; a closure per node showed up in its profile).
 */
interface Sink {
  at: At;
  out: FileIssue[];
}
function report(sink: Sink, base: readonly PropertyKey[], path: PropertyKey[], message: string) {
  sink.out.push(sink.at([...base, ...path], message));
}

/** The documented rules of each tile kind (API-FACTS "Observability objects"). */
function tileRules(tile: Record<string, unknown>, i: number, at: At): FileIssue[] {
  const sink: Sink = { at, out: [] };
  const base = ['tiles', i];
  const forms = FORMS.filter((f) => tile[f] !== undefined);
  if (forms.length > 1)
    report(
      sink,
      base,
      [forms[1]],
      `a tile has one of series, config or markdown (found ${forms.join(', ')})`,
    );

  let kind: string | undefined = forms.length === 0 ? undefined : 'markdown';
  if (Array.isArray(tile.series)) {
    for (let j = 0; j < tile.series.length; j++) {
      const s: unknown = tile.series[j];
      if (isRecord(s)) seriesRules(s, [...base, 'series', j], sink);
    }
    const first: unknown = tile.series[0];
    if (isRecord(first) && first.type === 'number' && tile.series.length > 1)
      report(sink, base, ['series'], 'a number tile has exactly 1 series');
    if (tile.asRatio === true && tile.series.length !== 2)
      report(sink, base, ['asRatio'], 'needs exactly 2 series');
    if (isRecord(first) && first.type === 'time')
      kind = typeof first.displayType === 'string' ? first.displayType : 'line';
    else if (isRecord(first) && typeof first.type === 'string') kind = first.type;
  }
  if (isRecord(tile.config)) {
    configRules(tile.config, [...base, 'config'], sink);
    if (typeof tile.config.displayType === 'string') kind = tile.config.displayType;
  }
  if (Array.isArray(tile.alerts)) alertRules(tile.alerts, kind, [...base, 'alerts'], sink);
  return sink.out;
}

function alertRules(alerts: unknown[], kind: string | undefined, base: PropertyKey[], sink: Sink) {
  const alertNames = new Set<string>();
  if (alerts.length > 0 && kind !== undefined && !CHART_TYPES.has(kind))
    report(
      sink,
      base,
      [],
      `alerts are only for line, stacked_bar and number tiles (this is ${kind})`,
    );
  for (let j = 0; j < alerts.length; j++) {
    const a: unknown = alerts[j];
    if (!isRecord(a)) continue;
    const here = [...base, j];
    if (typeof a.name === 'string') {
      if (alertNames.has(a.name))
        report(sink, here, ['name'], `duplicate alert name "${a.name}" on this tile`);
      alertNames.add(a.name);
    }
    const ranged = a.thresholdType === 'between' || a.thresholdType === 'not_between';
    if (ranged && a.thresholdMax === undefined)
      report(
        sink,
        here,
        ['thresholdMax'],
        `required when thresholdType is ${String(a.thresholdType)}`,
      );
    if (!ranged && a.thresholdMax !== undefined && typeof a.thresholdType === 'string')
      report(sink, here, ['thresholdMax'], 'only with thresholdType between or not_between');
    if (ranged && isNum(a.thresholdMax) && isNum(a.threshold) && a.thresholdMax < a.threshold)
      report(sink, here, ['thresholdMax'], `must be >= threshold (${a.threshold})`);
    if (isRecord(a.channel)) channelRules(a.channel, [...here, 'channel'], sink);
    scheduleRules(a, here, sink);
  }
}

/** A channel is a webhook (by id or by name) or email recipients: exactly one, as its type says. */
function channelRules(ch: Record<string, unknown>, base: PropertyKey[], sink: Sink) {
  const hook = ch.webhookId !== undefined || ch.webhook !== undefined;
  const email = ch.emailRecipients !== undefined;
  if (ch.webhookId !== undefined && ch.webhook !== undefined)
    report(sink, base, ['webhook'], 'give webhookId or webhook (a name), not both');
  if (hook && email) {
    report(sink, base, ['emailRecipients'], 'a channel is a webhook or email recipients, not both');
    return;
  }
  if (ch.type === 'webhook' && !hook)
    report(
      sink,
      base,
      ['webhookId'],
      'webhookId (or webhook: <name>) is required when type is webhook',
    );
  if (ch.type === 'email' && !email)
    report(sink, base, ['emailRecipients'], 'required when type is email');
  if (typeof ch.type === 'string' && ch.type !== 'email' && email)
    report(sink, base, ['emailRecipients'], `only when type is email (this is ${ch.type})`);
}

/** The provider's rules: an offset below the interval, and an offset or a start time, not both. */
function scheduleRules(a: Record<string, unknown>, base: PropertyKey[], sink: Sink) {
  const offset = a.scheduleOffsetMinutes;
  if (offset !== undefined && a.scheduleStartAt !== undefined)
    report(
      sink,
      base,
      ['scheduleStartAt'],
      'set scheduleOffsetMinutes or scheduleStartAt, not both',
    );
  const minutes = INTERVAL_MINUTES[a.interval as keyof typeof INTERVAL_MINUTES];
  if (isNum(offset) && minutes !== undefined && offset >= minutes && offset < 1440)
    report(
      sink,
      base,
      ['scheduleOffsetMinutes'],
      `must be less than the interval (${String(a.interval)} = ${minutes} minutes)`,
    );
}

/** Fields a series may carry only for some series types. */
const SERIES_ONLY: readonly (readonly [string, readonly string[]])[] = [
  ['displayType', ['time']],
  ['sortOrder', ['table']],
  ['fields', ['search']],
  ['content', ['markdown']],
  ['groupBy', ['time', 'table']],
  ['aggFn', ['time', 'table', 'number']],
  ['field', ['time', 'table', 'number']],
];

function seriesRules(s: Record<string, unknown>, base: PropertyKey[], sink: Sink): void {
  const type = s.type;
  if (s.source !== undefined && s.sourceId !== undefined)
    report(sink, base, ['source'], 'give sourceId or source (a name), not both');
  if (typeof type === 'string') {
    for (const [field, types] of SERIES_ONLY)
      if (s[field] !== undefined && !types.includes(type))
        report(sink, base, [field], `only on ${types.join(' or ')} series`);
  }
  if (type === 'markdown' && s.content === undefined)
    report(sink, base, ['content'], 'required on a markdown series');
  if (s.level !== undefined && s.aggFn !== 'quantile')
    report(sink, base, ['level'], 'only with aggFn quantile');
}

const SQL_TYPES = ['line', 'stacked_bar', 'table', 'number', 'pie', 'bar'];

/**
 * The August 2026 optional fields and the tile kinds that keep them: elsewhere the service
 * drops them silently, so the next plan would show them as drift forever.
 */
const CONFIG_ONLY: readonly (readonly [string, readonly string[]])[] = [
  ['fitYAxisToData', ['line']],
  ['color', ['number']],
  ['colorRules', ['number']],
  ['backgroundChart', ['number']],
  ['onClick', ['table']],
  ['limit', ['pie', 'bar']],
  ['orderBy', ['pie', 'bar', 'table']],
];
/** What a raw-SQL tile keeps of them. */
const SQL_KEEPS = new Set(['fitYAxisToData', 'color', 'onClick']);

function configFieldRules(
  c: Record<string, unknown>,
  type: string,
  base: PropertyKey[],
  sink: Sink,
): void {
  const sql = c.configType === 'sql';
  for (const [field, types] of CONFIG_ONLY) {
    if (c[field] === undefined) continue;
    if (sql && !SQL_KEEPS.has(field))
      report(sink, base, [field], 'not on a raw-SQL tile (configType sql)');
    else if (!types.includes(type))
      report(sink, base, [field], `only on ${types.join(', ')} tiles`);
  }
}

function configRules(c: Record<string, unknown>, base: PropertyKey[], sink: Sink): void {
  const type = c.displayType;
  if (typeof type !== 'string') return;
  if (c.source !== undefined && c.sourceId !== undefined)
    report(sink, base, ['source'], 'give sourceId or source (a name), not both');
  if (type === 'markdown') {
    if (c.markdown === undefined) report(sink, base, ['markdown'], 'required on a markdown tile');
    return;
  }
  if (c.markdown !== undefined) report(sink, base, ['markdown'], 'only on a markdown tile');
  configFieldRules(c, type, base, sink);
  if (c.configType === 'sql') {
    if (!SQL_TYPES.includes(type))
      report(sink, base, ['configType'], `no raw-SQL variant for ${type} tiles`);
    if (c.connectionId === undefined)
      report(sink, base, ['connectionId'], 'required with configType sql');
    if (c.sqlTemplate === undefined)
      report(sink, base, ['sqlTemplate'], 'required with configType sql');
    return;
  }
  if (c.source === undefined && c.sourceId === undefined)
    report(sink, base, [], 'sourceId (or source: <name>) is required');
  if (type === 'search') {
    if (c.select !== undefined && typeof c.select !== 'string')
      report(sink, base, ['select'], 'a search tile selects columns: a string');
    if (c.whereLanguage === undefined)
      report(sink, base, ['whereLanguage'], 'required on a search tile');
    return;
  }
  if (type === 'number' && c.groupBy !== undefined)
    report(sink, base, ['groupBy'], 'not on number tiles');
  const select = c.select;
  if (!Array.isArray(select)) {
    if (type !== 'event_patterns')
      report(sink, base, ['select'], 'required: a list of aggregations');
    return;
  }
  const exactlyOne = type === 'pie' || type === 'bar' || type === 'number' || type === 'heatmap';
  if (exactlyOne && select.length !== 1)
    report(sink, base, ['select'], `a ${type} tile has exactly 1 select item`);
  if (c.asRatio === true) {
    if (!['line', 'stacked_bar', 'table'].includes(type))
      report(sink, base, ['asRatio'], 'only on line, stacked_bar and table tiles');
    else if (select.length !== 2) report(sink, base, ['asRatio'], 'needs exactly 2 select items');
  }
  for (let j = 0; j < select.length; j++) {
    const item: unknown = select[j];
    if (isRecord(item)) selectRules(item, type, [...base, 'select', j], sink);
  }
}

function selectRules(item: Record<string, unknown>, type: string, base: PropertyKey[], sink: Sink) {
  if (type === 'heatmap') {
    if (item.aggFn !== undefined) report(sink, base, ['aggFn'], 'not on a heatmap tile');
    if (item.valueExpression === undefined)
      report(sink, base, ['valueExpression'], 'required on a heatmap tile');
    return;
  }
  if (item.aggFn === undefined) report(sink, base, ['aggFn'], 'required');
  if (item.aggFn === 'count' && item.valueExpression !== undefined)
    report(sink, base, ['valueExpression'], 'not with aggFn count');
  if (item.aggFn !== 'count' && item.aggFn !== undefined && item.valueExpression === undefined)
    report(sink, base, ['valueExpression'], `required with aggFn ${JSON.stringify(item.aggFn)}`);
  if (item.level !== undefined) {
    if (item.aggFn !== 'quantile') report(sink, base, ['level'], 'only with aggFn quantile');
    else if (!(QUANTILE_LEVELS as readonly unknown[]).includes(item.level))
      report(sink, base, ['level'], `one of ${QUANTILE_LEVELS.join(', ')}`);
  }
}
