/** Shared set-up for the alert provisioning tests: a sandbox, a backend on it, ground truth. */
import type { ObservabilityBackend } from '../../lib/api';
import { createVersionTable } from '../../lib/alerts';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import type { Alert, Dashboard } from '../../lib/schemas';
import type { Sandbox, SandboxOptions } from '../../sandbox/index';
import { startTestSandbox } from '../support/sandbox';
import { sandboxClients } from '../support/sandbox-clients';

export const GENEROUS = {
  management: { limit: 100_000, windowMs: 1_000 },
  observability: { limit: 100_000, windowMs: 1_000 },
};

export async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startTestSandbox({ rateLimits: GENEROUS, ...options });
}

export const VERSION_TABLE = 'cloudops-alert-versions';

/** A sandbox and dynalite with the alert version table, started side by side. */
export async function sandboxWithVersions(): Promise<{ sb: Sandbox; dynamo: LocalDynamo }> {
  const [sb, dynamo] = await Promise.all([sandbox(), startLocalDynamo()]);
  await createVersionTable(dynamo.client, VERSION_TABLE);
  return { sb, dynamo };
}

/** Managed mode as deployed: create/list/delete through the management API, PUT through /api/v2. */
export function backendFor(sb: Sandbox): ObservabilityBackend {
  return sandboxClients(sb.info, {
    label: 'test',
    retry: { baseDelayMs: 2, maxDelayMs: 20, jitter: 0 },
    timeoutMs: 2_000,
  }).backend;
}

const series = [{ type: 'time', dataSource: 'logs', aggFn: 'count' }];

export async function makeDashboard(
  backend: ObservabilityBackend,
  name: string,
  tileNames: string[] = ['Errors', 'Latency', 'Throughput'],
): Promise<Dashboard> {
  return backend.createDashboard({
    name,
    tiles: tileNames.map((t, i) => ({
      name: t,
      x: (i % 4) * 6,
      y: Math.floor(i / 4) * 4,
      w: 6,
      h: 4,
      series,
    })),
  });
}

/** Alert writes (POST/PUT/DELETE on alert paths, either API) in the sandbox request log. */
export function alertWrites(sb: Sandbox): number {
  return sb.requestLog.entries().filter((e) => e.method !== 'GET' && /\/alerts(\/|$)/.test(e.path))
    .length;
}

/** The service's alerts straight from the sandbox store (the ground truth, no client involved). */
export function storedAlerts(sb: Sandbox): Alert[] {
  return sb.store.state.alerts
    .filter((a) => a.serviceId === sb.info.serviceId)
    .map(({ serviceId: _s, ...a }): Alert => structuredClone(a));
}
