/**
 * The deployed sync's way to read its files: listed once, streamed through parse → validate a
 * few at a time (file-stream.ts), keeping per file only what planning needs: the normalized
 * dashboard of a file that changed, the manifest entry of one that did not (not parsed, and
 * not even read when its version is the recorded one). Every problem of every file read is
 * collected before anything is written, as loadDashboards does; keys must be unique across the
 * read and the unread files alike.
 */
import { formatPath } from '../format-issues';
import { dashboardFilesError, isDashboardFile, type DashboardSource } from './load';
import { textDigest, type KnownFile, type Manifest, type ReadFile } from './manifest';
import { locateIn } from './parse';
import { streamFiles, type StreamOptions } from './file-stream';
import type { DesiredDashboard, FileIssue, SourceFile } from './types';
import { deriveKey, validateFiles, type ValidateOptions } from './validate';

export interface ChangedFilesOptions extends ValidateOptions, StreamOptions {
  /** The one service of the run: a file whose `services:` leave it out is not planned. */
  readonly service?: string;
  /** The last run's manifest, when made in this run's context (manifest.ts). */
  readonly lastRun?: Manifest;
}

export interface ChangedFiles {
  /** The dashboards of the files parsed this run (for this service). */
  desired: DesiredDashboard[];
  /** Their texts, to locate problems found later (names, webhook ids). */
  texts: SourceFile[];
  /** Files the manifest knows unchanged (not parsed; read only if their version moved). */
  known: KnownFile[];
  /** Every file read and parsed this run, for the next manifest. */
  read: ReadFile[];
  /** Dashboard files listed. */
  listed: number;
}

/** One file through the stream: what planning and the manifest keep of it. */
type Streamed =
  | { kind: 'known'; known: KnownFile }
  | {
      kind: 'parsed';
      record?: ReadFile;
      dashboard?: DesiredDashboard;
      text: string;
      issues: FileIssue[];
    };

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
  const entries = options.lastRun?.files ?? {};
  // The recorded version says "unchanged" without a read.
  const unread = files.filter((f) => {
    const version = source.version?.(f);
    return version !== undefined && entries[f]?.version === version;
  });
  const skip = new Set(unread);
  const streamed = await streamFiles(
    source,
    files.filter((f) => !skip.has(f)),
    (file) => streamOne(file, source, options),
    options,
  );
  const known = unread.map((file) => ({ file, entry: entries[file] }));
  const out: ChangedFiles = { desired: [], texts: [], known, read: [], listed: files.length };
  const issues: FileIssue[] = [];
  for (const s of streamed) {
    if (s.kind === 'known') {
      known.push(s.known);
      continue;
    }
    issues.push(...s.issues);
    if (s.record) out.read.push(s.record);
    if (s.dashboard) {
      out.desired.push(s.dashboard);
      out.texts.push({ file: s.dashboard.sourceFile, text: s.text });
    }
  }
  issues.push(...duplicateKeys(out, issues));
  if (issues.length > 0) throw dashboardFilesError(source.label, issues);
  return out;
}

/**
 * Reads and parses files the manifest knew but that cannot be vouched for after all (their
 * dashboard moved on the service): the same step as any changed file.
 */
export async function loadKnownFiles(
  source: DashboardSource,
  known: readonly KnownFile[],
  options: ChangedFilesOptions = {},
): Promise<Pick<ChangedFiles, 'desired' | 'texts' | 'read'>> {
  const streamed = await streamFiles(
    source,
    known.map((k) => k.file),
    (file) => parseOne(file, source, options),
    options,
  );
  const out: Pick<ChangedFiles, 'desired' | 'texts' | 'read'> = {
    desired: [],
    texts: [],
    read: [],
  };
  const issues = streamed.flatMap((s) => s.issues);
  if (issues.length > 0) throw dashboardFilesError(source.label, issues);
  for (const s of streamed) {
    if (s.record) out.read.push(s.record);
    if (s.dashboard) {
      out.desired.push(s.dashboard);
      out.texts.push({ file: s.dashboard.sourceFile, text: s.text });
    }
  }
  return out;
}

/** A read file whose text is the recorded one is known after all (a re-upload): not parsed. */
function streamOne(
  file: SourceFile,
  source: DashboardSource,
  options: ChangedFilesOptions,
): Streamed {
  const entry = options.lastRun?.files[file.file];
  if (entry && file.bytes === undefined && entry.digest === textDigest(file.text))
    return { kind: 'known', known: { file: file.file, entry } };
  return parseOne(file, source, options);
}

function parseOne(
  file: SourceFile,
  source: DashboardSource,
  options: ChangedFilesOptions,
): Extract<Streamed, { kind: 'parsed' }> {
  // One file at a time: validateFiles' cross-file check is duplicateKeys' job here.
  const { dashboards, issues } = validateFiles([file], options);
  const dashboard = dashboards[0];
  if (!dashboard || issues.length > 0) return { kind: 'parsed', text: '', issues };
  const service = options.service;
  const elsewhere =
    service !== undefined &&
    dashboard.services !== undefined &&
    !dashboard.services.includes(service);
  const record: ReadFile = {
    file: file.file,
    version: source.version?.(file.file),
    digest: textDigest(file.text),
    key: dashboard.key,
    ...(elsewhere ? { elsewhere } : {}),
    ...(dashboard.tiles.some((t) => t.alerts.length > 0) ? { alerts: true } : {}),
  };
  if (elsewhere) return { kind: 'parsed', record, text: '', issues: [] };
  return { kind: 'parsed', record, dashboard, text: file.text, issues: [] };
}

const byFile = new Intl.Collator();

/** A key two files declare (read or not): each file after the first is a problem. */
function duplicateKeys(loaded: ChangedFiles, earlier: readonly FileIssue[]): FileIssue[] {
  const bad = new Set(earlier.map((i) => i.file));
  const byKey = new Map<string, string[]>();
  const add = (key: string, file: string) => byKey.set(key, [...(byKey.get(key) ?? []), file]);
  for (const k of loaded.known) add(k.entry.key, k.file);
  for (const r of loaded.read) add(r.key, r.file);
  const texts = new Map(loaded.texts.map((t) => [t.file, t.text]));
  const issues: FileIssue[] = [];
  for (const [key, files] of byKey) {
    if (files.length < 2) continue;
    const [first, ...others] = [...files].sort(byFile.compare);
    for (const file of others) {
      if (bad.has(file)) continue;
      const explicit = key !== deriveKey(file);
      const text = texts.get(file);
      issues.push({
        file,
        ...(explicit && text !== undefined ? locateIn(text, ['key']) : {}),
        path: explicit ? formatPath(['key']) : '',
        message: `duplicate key "${key}": also used by ${first}`,
      });
    }
  }
  return issues;
}
