/** `cloudops dashboards pull`: writes one file per dashboard on the service (lib/dashboards/pull.ts). */
import { mkdir, writeFile } from 'node:fs/promises';
import { orAbsent } from '../../lib/dashboards/resolve';
import path from 'node:path';
import type { ObservabilityBackend } from '../../lib/api';
import { pullFiles, type PulledFile } from '../../lib/dashboards/pull';

export async function pullDashboards(
  backend: Pick<
    ObservabilityBackend,
    'listDashboards' | 'listAlerts' | 'listSources' | 'listWebhooks'
  >,
  dir: string,
  options: { keys: string[]; names: string[]; owner: string; signal?: AbortSignal },
): Promise<PulledFile[]> {
  const call = options.signal ? { signal: options.signal } : {};
  const dashboards = await backend.listDashboards(call);
  const alerts = await backend.listAlerts(call);
  // Names instead of ids where the service lists them (and a name is unique).
  const sources = (await orAbsent(backend.listSources?.(call))) ?? [];
  const webhooks = (await orAbsent(backend.listWebhooks?.(call))) ?? [];
  const files = pullFiles(dashboards, alerts, options, { sources, webhooks });
  await mkdir(dir, { recursive: true });
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f.file)), { recursive: true });
    await writeFile(path.join(dir, f.file), f.text);
  }
  return files;
}
