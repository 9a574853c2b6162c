/**
 * The deployed sync's way to read its files: listed once, streamed through parse → validate (→
 * a first plan, when the service's dashboards are known) a few at a time (file-stream.ts),
 * keeping per file only what planning needs: the normalized dashboard of a file that changed,
 * a manifest entry of one in sync. A file the manifest knows with the same version is not even
 * read, one with the same text is not parsed, when its dashboard is still the recorded one.
 * Every problem of every file read is collected before anything is written, as loadDashboards
 * does; keys must be unique across read and unread files alike.
 *
 * Webhook and saved-search files are few and always read: a webhook's secrets may change while
 * its file does not, so they are read (once per run) and compared by digest every time. They are
 * validated together once streaming is done, after their secrets are read.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { formatPath } from '../format-issues';
import { dashboardFilesError, isDashboardFile, type DashboardSource } from './load';
import {
  textDigest,
  type Manifest,
  type ManifestEntry,
  type ReadFile,
  type SeenInSync,
} from './manifest';
import { kindOf } from './kinds-schema';
import { locateIn, parseFile, type ParsedFile } from './parse';
import { streamFiles, type StreamOptions } from './file-stream';
import type { DesiredDashboard, FileIssue, FolderObjects, SourceFile } from './types';
import { compareFiles, deriveKey, validateParsed, type ValidateOptions } from './validate';
import { secretsFor } from './webhook-secrets';

/** Says which files are in sync with the service, so nothing of them is kept. */
export interface Voucher {
  /** A file the manifest knows, unchanged: its recorded dashboard, if it is still as recorded. */
  known(entry: ManifestEntry): SeenInSync | undefined;
  /** A file parsed this run: its dashboard, if it is already as the file wants it. */
  parsed(want: DesiredDashboard): SeenInSync | undefined;
}

export interface ChangedFilesOptions extends ValidateOptions, StreamOptions {
  /** The one service of the run: a file whose `services:` leave it out is not planned. */
  readonly service?: string;
  /** The last run's manifest, when made in this run's context (manifest.ts). */
  readonly lastRun?: Manifest;
  /** Asked for once the files are listed, before any is read (it may read the service). */
  readonly voucher?: () => Promise<Voucher>;
  /** Where webhook files' `{ secret }` values are read; without it a reference is a problem. */
  readonly secretsClient?: () => SecretsManagerClient;
  /** The only secrets a reference may name (the deployed sync's grant); unset: any. */
  readonly allowedSecrets?: readonly string[];
}

export interface ChangedFiles {
  /** The dashboards of the files that are not in sync (for this service). */
  desired: DesiredDashboard[];
  /** Their texts, to locate problems found later (names, webhook ids). */
  texts: SourceFile[];
  /** Files in sync (or for other services), as the next manifest keeps them. */
  inSync: { file: string; entry: ManifestEntry }[];
  /** The files of `desired`, for the next manifest once their dashboard is seen in sync. */
  planned: ReadFile[];
  /** The webhook and saved-search files (always read, secrets resolved). */
  objects: FolderObjects;
  /** Dashboard files listed, and read (the others were vouched for unread). */
  listed: number;
  read: number;
}

/** One file through the stream: what planning and the manifest keep of it. */
type Streamed =
  | { kind: 'in-sync'; file: string; entry: ManifestEntry }
  | { kind: 'changed'; record: ReadFile; dashboard: DesiredDashboard; text: string }
  | { kind: 'bad'; issues: FileIssue[] }
  | { kind: 'object'; file: SourceFile; parsed: ParsedFile };

/** Lists and streams the files; throws DashboardFilesError (every problem) before any write. */
export async function loadChangedFiles(
  source: DashboardSource,
  options: ChangedFilesOptions = {},
): Promise<ChangedFiles> {
  const files = (await source.list()).filter(isDashboardFile).sort();
  if (files.length === 0) {
    throw dashboardFilesError(source.label, [
      { file: source.label, path: '', message: 'no dashboard files (.yaml, .yml, .json) found' },
    ]);
  }
  const voucher = await options.voucher?.();
  const entries = options.lastRun?.files ?? {};
  const out: ChangedFiles = {
    desired: [],
    texts: [],
    inSync: [],
    planned: [],
    objects: { webhooks: [], savedSearches: [] },
    listed: files.length,
    read: 0,
  };
  // Same version as recorded, and its dashboard as recorded: not read at all.
  const unread = new Set<string>();
  for (const file of files) {
    const entry = entries[file];
    const version = source.version?.(file);
    if (!entry || !voucher || version === undefined || entry.version !== version) continue;
    const seen = entry.elsewhere ? {} : voucher.known(entry);
    if (!seen) continue;
    unread.add(file);
    out.inSync.push({ file, entry: { ...entry, ...seen } });
  }
  const toRead = files.filter((f) => !unread.has(f));
  out.read = toRead.length;
  const streamed = await streamFiles(
    source,
    toRead,
    (file) => streamOne(file, source, entries[file.file], voucher, options),
    options,
  );
  const issues: FileIssue[] = [];
  const objectFiles: { file: SourceFile; parsed: ParsedFile }[] = [];
  for (const s of streamed) {
    if (s.kind === 'bad') issues.push(...s.issues);
    else if (s.kind === 'in-sync') out.inSync.push({ file: s.file, entry: s.entry });
    else if (s.kind === 'object') objectFiles.push(s);
    else {
      out.planned.push(s.record);
      out.desired.push(s.dashboard);
      out.texts.push({ file: s.record.file, text: s.text });
    }
  }
  issues.push(...(await duplicateKeys(out, issues)));
  issues.push(...(await readObjects(objectFiles, out, options)));
  if (issues.length > 0) throw dashboardFilesError(source.label, issues);
  return out;
}

/** The webhook and saved-search files, validated together once their secrets are read. */
async function readObjects(
  files: readonly { file: SourceFile; parsed: ParsedFile }[],
  out: ChangedFiles,
  options: ChangedFilesOptions,
): Promise<FileIssue[]> {
  if (files.length === 0) return [];
  const parsed = files.map((f) => f.parsed);
  // No client: every reference says it was not read (never an offline stand-in value).
  const secrets =
    (await secretsFor(parsed, options.secretsClient, options.allowedSecrets)) ?? new Map();
  const { issues, objects } = validateParsed(parsed, { ...options, secrets });
  out.objects = objects;
  out.texts.push(...files.map((f) => f.file));
  return issues;
}

/** Webhook and saved-search files wait for their secrets; the rest are dashboards. */
const isObjectFile = (parsed: ParsedFile) => {
  const kind = parsed.issues.length === 0 ? kindOf(parsed.value) : undefined;
  return kind === 'webhook' || kind === 'savedSearch';
};

/**
 * One file: a re-upload of the recorded text needs no parse when its dashboard is as recorded;
 * otherwise it is parsed and validated, and (with a voucher) kept only if not in sync.
 */
async function streamOne(
  file: SourceFile,
  source: DashboardSource,
  entry: ManifestEntry | undefined,
  voucher: Voucher | undefined,
  options: ChangedFilesOptions,
): Promise<Streamed> {
  const version = source.version?.(file.file);
  const digest = file.bytes === undefined ? textDigest(file.text) : '';
  const current = { ...(version !== undefined ? { version } : {}), digest };
  if (entry && voucher && entry.digest === digest) {
    const seen = entry.elsewhere ? {} : voucher.known(entry);
    if (seen) return { kind: 'in-sync', file: file.file, entry: { ...entry, ...current, ...seen } };
  }
  const parsed = await parseFile(file);
  if (isObjectFile(parsed)) return { kind: 'object', file, parsed };
  // One file at a time: validateParsed's cross-file check is duplicateKeys' job here.
  const { dashboards, issues } = validateParsed([parsed], options);
  const dashboard = dashboards[0];
  if (!dashboard || issues.length > 0) return { kind: 'bad', issues };
  const base = { ...current, key: dashboard.key };
  const service = options.service;
  if (service !== undefined && dashboard.services && !dashboard.services.includes(service))
    return { kind: 'in-sync', file: file.file, entry: { ...base, elsewhere: true } };
  const seen = voucher?.parsed(dashboard);
  if (seen) return { kind: 'in-sync', file: file.file, entry: { ...base, ...seen } };
  const alerts = dashboard.tiles.some((t) => t.alerts.length > 0);
  const record: ReadFile = { file: file.file, ...base, ...(alerts ? { alerts } : {}) };
  return { kind: 'changed', record, dashboard, text: file.text };
}

/** A key two files declare (read or not): each file after the first is a problem. */
async function duplicateKeys(
  loaded: ChangedFiles,
  earlier: readonly FileIssue[],
): Promise<FileIssue[]> {
  const bad = new Set(earlier.map((i) => i.file));
  const byKey = new Map<string, string[]>();
  const add = (key: string, file: string) => byKey.set(key, [...(byKey.get(key) ?? []), file]);
  for (const k of loaded.inSync) add(k.entry.key, k.file);
  for (const r of loaded.planned) add(r.key, r.file);
  const texts = new Map(loaded.texts.map((t) => [t.file, t.text]));
  const issues: FileIssue[] = [];
  for (const [key, files] of byKey) {
    if (files.length < 2) continue;
    const [first, ...others] = [...files].sort(compareFiles);
    for (const file of others) {
      if (bad.has(file)) continue;
      const explicit = key !== deriveKey(file);
      const text = texts.get(file);
      issues.push({
        file,
        ...(explicit && text !== undefined ? await locateIn(text, ['key']) : {}),
        path: explicit ? formatPath(['key']) : '',
        message: `duplicate key "${key}": also used by ${first}`,
      });
    }
  }
  return issues;
}
