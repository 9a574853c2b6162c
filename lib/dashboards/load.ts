/**
 * Where dashboard files come from. A source lists relative paths and reads one; the CLI
 * uses a directory, the sync function an S3 prefix (functions/sync-dashboards).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import path from 'node:path';
import { ValidationError, type ErrorOptions } from '../errors';
import type { CallOptions } from '../api/http';
import { FILE_LIMITS, locateIn, parseFile } from './parse';
import { resolveNames, type NameDirectory } from './resolve';
import { groupByService, type ServiceGroup, type ServiceScope } from './services';
import { withFolderWebhooks } from './folder-webhooks';
import type { DesiredDashboard, FileIssue, FolderObjects, SourceFile } from './types';
import { formatFileIssue, validateParsed, type ValidateOptions } from './validate';
import { secretsFor } from './webhook-secrets';

export interface DashboardSource {
  /** Shown in messages: a directory or `s3://bucket/prefix`. */
  readonly label: string;
  /** Every file under the root, relative, with `/` separators. */
  list(): Promise<string[]>;
  read(file: string): Promise<string>;
  /** Bytes of a file, when known without reading it (an oversized file is then never read). */
  size?(file: string): Promise<number | undefined>;
  /**
   * What changes whenever the file's content changes (S3: the ETag), known from the last
   * list() without reading the file. Absent: every run reads every file.
   */
  version?(file: string): string | undefined;
}

const DASHBOARD_FILE = /\.(ya?ml|json)$/i;

export function isDashboardFile(file: string): boolean {
  return DASHBOARD_FILE.test(file) && !file.split('/').some((part) => part.startsWith('.'));
}

export function directorySource(root: string): DashboardSource {
  return {
    label: root,
    async list() {
      const info = await stat(root).catch(() => undefined);
      if (!info?.isDirectory())
        throw new ValidationError(`dashboard directory not found: ${root}`, { source: root });
      const entries = await readdir(root, { recursive: true, withFileTypes: true });
      return entries
        .filter((e) => e.isFile())
        .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
    },
    read: (file) => readFile(path.join(root, file), 'utf8'),
    size: async (file) => (await stat(path.join(root, file))).size,
  };
}

/** Reads every dashboard file of a source (README and dot-files are skipped). */
async function readSource(source: DashboardSource): Promise<SourceFile[]> {
  const files = (await source.list()).filter(isDashboardFile).sort();
  return Promise.all(
    files.map(async (file): Promise<SourceFile> => {
      const bytes = await source.size?.(file);
      // Not read at all: parseFile reports the size from `bytes`.
      if (bytes !== undefined && bytes > FILE_LIMITS.maxFileBytes) return { file, text: '', bytes };
      return { file, text: await source.read(file) };
    }),
  );
}

/** A set of dashboard files with problems; `issues` lists every one (`file:line:col path: message`). */
export class DashboardFilesError extends ValidationError {
  override name = 'DashboardFilesError';
  readonly fileIssues: readonly FileIssue[];
  /** `issues` are the formatted `fileIssues`. */
  constructor(
    message: string,
    options: ErrorOptions & { source: string; fileIssues: readonly FileIssue[] },
  ) {
    super(message, { ...options, issues: options.fileIssues.map(formatFileIssue) });
    this.fileIssues = options.fileIssues;
  }
}

/** A DashboardFilesError whose message lists every problem. */
export function dashboardFilesError(
  source: string,
  fileIssues: readonly FileIssue[],
): DashboardFilesError {
  const lines = fileIssues.map(formatFileIssue);
  return new DashboardFilesError(
    `${fileIssues.length} problem(s) in dashboard files under ${source}:\n  ${lines.join('\n  ')}`,
    { source, fileIssues },
  );
}

/**
 * Reads and validates every file; throws DashboardFilesError listing all problems, so no
 * write happens unless every file is good. An empty source is refused: with prune it would
 * delete every owned dashboard.
 */
/** Where `{ secret }` values are read (each referenced secret once, before validation). */
interface SecretsOption {
  readonly secretsClient?: () => SecretsManagerClient;
}

export interface LoadOptions extends ValidateOptions, SecretsOption {
  /**
   * The service's sources and webhooks lists: `source:` / `webhook:` names are resolved and
   * webhook ids checked (each list read once, only when a file needs it). Without it, names
   * stay unresolved (offline validation). A function is called only once the files are
   * valid and a file needs a list, so bad files fail before any connection is made.
   */
  readonly directory?: NameDirectory | (() => NameDirectory);
  readonly call?: CallOptions;
  /**
   * The one service this run is for: a file listing `services:` without it is left out (a
   * file without the list is always in). Unset: every file, whatever it lists.
   */
  readonly service?: string;
}

export async function loadDashboards(
  source: DashboardSource,
  options: LoadOptions = {},
): Promise<DesiredDashboard[]> {
  return (await loadFolder(source, options)).dashboards;
}

/** A folder's dashboards for one service, with its webhooks and saved searches. */
export interface LoadedFolder {
  dashboards: DesiredDashboard[];
  objects: FolderObjects;
}

/** Like loadDashboards, keeping the folder's other kinds (webhooks, saved searches). */
export async function loadFolder(
  source: DashboardSource,
  options: LoadOptions = {},
): Promise<LoadedFolder> {
  const files = await readSource(source);
  if (files.length === 0) {
    throw dashboardFilesError(source.label, [
      { file: source.label, path: '', message: 'no dashboard files (.yaml, .yml, .json) found' },
    ]);
  }
  const parsed = await Promise.all(files.map(parseFile));
  const secrets = await secretsFor(parsed, options.secretsClient);
  const { dashboards: all, issues, objects } = validateParsed(parsed, { ...options, secrets });
  if (issues.length > 0) throw dashboardFilesError(source.label, issues);
  const service = options.service;
  const dashboards =
    service === undefined ? all : all.filter((d) => !d.services || d.services.includes(service));
  const { directory } = options;
  if (!directory) return { dashboards, objects };
  const lists = () =>
    withFolderWebhooks(typeof directory === 'function' ? directory() : directory, objects.webhooks);
  const resolved = await resolveNames(
    dashboards,
    lists,
    files,
    options.call,
    objects.savedSearches,
  );
  if (resolved.issues.length > 0) throw dashboardFilesError(source.label, resolved.issues);
  return {
    dashboards: resolved.dashboards,
    objects: { ...objects, savedSearches: resolved.savedSearches },
  };
}

export interface LoadGroupsOptions extends ValidateOptions, SecretsOption {
  /** Asked for once every file is valid (it may need the configuration). */
  readonly scope: () => ServiceScope;
  /**
   * The configured services, asked for only once every file is valid and only when a file
   * lists `services:` (so bad files fail without any configuration); an entry outside them is
   * an error naming file:line.
   */
  readonly configuredServices?: () => readonly string[];
  /** The sources and webhooks lists of one service (each service has its own). */
  readonly directory?: (service: string) => NameDirectory;
  readonly call?: CallOptions;
}

/**
 * Like loadDashboards, for several services: validates every file once, groups the dashboards
 * by service (services.ts), then resolves names against each service's own lists. Every
 * problem of every service is reported before anything is written.
 */
export async function loadDashboardGroups(
  source: DashboardSource,
  options: LoadGroupsOptions,
): Promise<ServiceGroup[]> {
  const files = await readSource(source);
  if (files.length === 0) {
    throw dashboardFilesError(source.label, [
      { file: source.label, path: '', message: 'no dashboard files (.yaml, .yml, .json) found' },
    ]);
  }
  const parsed = await Promise.all(files.map(parseFile));
  const secrets = await secretsFor(parsed, options.secretsClient);
  const { dashboards, issues, objects } = validateParsed(parsed, { ...options, secrets });
  if (issues.length > 0) throw dashboardFilesError(source.label, issues);
  if (options.configuredServices && dashboards.some((d) => d.services)) {
    const unknown = await unconfiguredServices(dashboards, files, options.configuredServices());
    if (unknown.length > 0) throw dashboardFilesError(source.label, unknown);
  }
  // The folder's webhooks and saved searches go to the first group: the default (or only) service.
  const groups = groupByService(dashboards, options.scope()).map((g, i) =>
    i === 0 ? { ...g, objects } : g,
  );
  const directory = options.directory;
  if (!directory) return groups;
  const several = groups.length > 1;
  const resolved: ServiceGroup[] = [];
  const problems: FileIssue[] = [];
  for (const g of groups) {
    const own = g.objects ?? { webhooks: [], savedSearches: [] };
    const lists = () => withFolderWebhooks(directory(g.service), own.webhooks);
    const r = await resolveNames(g.dashboards, lists, files, options.call, own.savedSearches);
    resolved.push({
      service: g.service,
      dashboards: r.dashboards,
      ...(g.objects ? { objects: { ...g.objects, savedSearches: r.savedSearches } } : {}),
    });
    for (const i of r.issues)
      problems.push(several ? { ...i, message: `${i.message} (service ${g.service})` } : i);
  }
  if (problems.length > 0) throw dashboardFilesError(source.label, problems);
  return resolved;
}

/** Each `services:` entry outside the configured services, at its line. */
async function unconfiguredServices(
  dashboards: readonly DesiredDashboard[],
  files: readonly SourceFile[],
  known: readonly string[],
): Promise<FileIssue[]> {
  const texts = new Map(files.map((f) => [f.file, f.text]));
  const issues: FileIssue[] = [];
  for (const d of dashboards) {
    for (const [i, id] of (d.services ?? []).entries()) {
      if (known.includes(id)) continue;
      issues.push({
        file: d.sourceFile,
        ...(await locateIn(texts.get(d.sourceFile) ?? '', ['services', i])),
        path: `services[${i}]`,
        message: `service ${id} is not configured (CLOUDOPS_SERVICE_ID: ${known.join(', ') || 'none'})`,
      });
    }
  }
  return issues;
}
