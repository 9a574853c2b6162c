/** `cloudops dashboards pull`: writes one file per dashboard on the service (lib/dashboards/pull.ts). */
import { access, mkdir, writeFile } from 'node:fs/promises';
import { orAbsent } from '../../lib/dashboards/resolve';
import path from 'node:path';
import type { ObservabilityBackend } from '../../lib/api';
import { pullFiles, type PulledFile } from '../../lib/dashboards/pull';
import { ValidationError } from '../../lib/errors';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

export async function pullDashboards(
  backend: Pick<
    ObservabilityBackend,
    'listDashboards' | 'listAlerts' | 'listSources' | 'listWebhooks'
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
): Promise<PulledFile[]> {
  const call = options.signal ? { signal: options.signal } : {};
  const dashboards = await backend.listDashboards(call);
  const alerts = await backend.listAlerts(call);
  // Names instead of ids where the service lists them (and a name is unique).
  const sources = (await orAbsent(backend.listSources?.(call))) ?? [];
  const webhooks = (await orAbsent(backend.listWebhooks?.(call))) ?? [];
  const files = pullFiles(dashboards, alerts, options, { sources, webhooks });
  if (!options.force) {
    const taken: string[] = [];
    for (const f of files) if (await exists(path.join(dir, f.file))) taken.push(f.file);
    if (taken.length > 0)
      throw new ValidationError(
        `pull would overwrite ${taken.length} file(s) in ${dir}: ${taken.join(', ')}; nothing was written (--force overwrites them)`,
      );
  }
  await mkdir(dir, { recursive: true });
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f.file)), { recursive: true });
    await writeFile(path.join(dir, f.file), f.text);
  }
  return files;
}
