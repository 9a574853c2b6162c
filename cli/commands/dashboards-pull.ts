/** `cloudops dashboards pull`: writes one file per dashboard on the service (lib/dashboards/pull.ts). */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ObservabilityBackend } from '../../lib/api';
import { pullFiles, type PulledFile } from '../../lib/dashboards/pull';

export async function pullDashboards(
  backend: Pick<ObservabilityBackend, 'listDashboards' | 'listAlerts'>,
  dir: string,
  options: { keys: string[]; names: string[]; owner: string; signal?: AbortSignal },
): Promise<PulledFile[]> {
  const call = options.signal ? { signal: options.signal } : {};
  const [dashboards, alerts] = [await backend.listDashboards(call), await backend.listAlerts(call)];
  const files = pullFiles(dashboards, alerts, options);
  await mkdir(dir, { recursive: true });
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f.file)), { recursive: true });
    await writeFile(path.join(dir, f.file), f.text);
  }
  return files;
}
