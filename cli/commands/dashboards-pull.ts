/** `cloudops dashboards pull`: writes one file per dashboard on the service (lib/dashboards/pull.ts). */
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ObservabilityBackend } from '../../lib/api';
import { directorySource, isDashboardFile } from '../../lib/dashboards/load';
import { pullObjects } from '../../lib/dashboards/pull-objects';
import {
  declaredIn,
  pullFiles,
  uniqueNames,
  type DeclaredFile,
  type PullResult,
} from '../../lib/dashboards/pull';
import { orAbsent } from '../../lib/dashboards/resolve';
import { ValidationError } from '../../lib/errors';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** The dashboards the folder's files declare (none when the folder does not exist yet). */
async function declaredFiles(dir: string): Promise<DeclaredFile[]> {
  if (!(await exists(dir))) return [];
  const files = (await directorySource(dir).list()).filter(isDashboardFile).sort();
  const declared = await Promise.all(
    files.map(async (file) => declaredIn(file, await readFile(path.join(dir, file), 'utf8'))),
  );
  return declared.filter((d) => d !== undefined);
}

export async function pullDashboards(
  backend: Pick<
    ObservabilityBackend,
    'listDashboards' | 'listAlerts' | 'listSources' | 'listWebhooks' | 'listSavedSearches'
  >,
  dir: string,
  options: {
    keys: string[];
    names: string[];
    owner: string;
    /** Overwrite files that exist (else refused, before any file is written). */
    force?: boolean;
    signal?: AbortSignal;
  },
): Promise<PullResult> {
  const call = options.signal ? { signal: options.signal } : {};
  const declared = await declaredFiles(dir);
  const dashboards = await backend.listDashboards(call);
  const alerts = await backend.listAlerts(call);
  // Names instead of ids where the service lists them (and a name is unique).
  const sources = (await orAbsent(backend.listSources?.(call))) ?? [];
  const webhooks = (await orAbsent(backend.listWebhooks?.(call))) ?? [];
  const savedSearches = (await orAbsent(backend.listSavedSearches?.(call))) ?? [];
  const pulled = pullFiles(dashboards, alerts, options, { sources, webhooks }, declared);
  const ids = { sources: uniqueNames(sources), webhooks: uniqueNames(webhooks) };
  const objects = pullObjects({ webhooks, savedSearches, alerts }, options, ids, declared);
  // A --target naming a webhook or saved search matched one, not "no dashboard".
  const matched = new Set(objects.map((o) => o.key));
  const result: PullResult = {
    files: [...objects, ...pulled.files],
    warnings: pulled.warnings.filter(
      (w) => ![...matched].some((k) => w.startsWith(`--target "${k}"`)),
    ),
  };
  if (!options.force) {
    const taken: string[] = [];
    for (const f of result.files) if (await exists(path.join(dir, f.file))) taken.push(f.file);
    if (taken.length > 0)
      throw new ValidationError(
        `pull would overwrite ${taken.length} file(s) in ${dir}: ${taken.join(', ')}; nothing was written (--force overwrites them)`,
      );
  }
  await mkdir(dir, { recursive: true });
  for (const f of result.files) {
    await mkdir(path.dirname(path.join(dir, f.file)), { recursive: true });
    await writeFile(path.join(dir, f.file), f.text);
  }
  return result;
}
