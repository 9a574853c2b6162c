/** Shared set-up for the alert provisioning tests: a sandbox, a backend on it, event builders. */
import {
  createManagementClient,
  createObservabilityBackend,
  createObservabilityClient,
  type ObservabilityBackend,
} from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import {
  ALERT_PROVISION_REQUESTED,
  DASHBOARD_SYNCED,
  type AlertProvisionRequestedEvent,
  type DashboardSyncedEvent,
  type DeclaredAlertDetail,
} from '../../lib/events';
import {
  managementAuth,
  observabilityTokenSecret,
  type Alert,
  type CreateAlertBody,
  type Dashboard,
} from '../../lib/schemas';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index';

export const GENEROUS = {
  management: { limit: 100_000, windowMs: 1_000 },
  observability: { limit: 100_000, windowMs: 1_000 },
};

export async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, rateLimits: GENEROUS, ...options });
}

/** Managed mode as deployed: create/list/delete through the management API, PUT through /api/v2. */
export function backendFor(sb: Sandbox): ObservabilityBackend {
  const retry = { baseDelayMs: 2, maxDelayMs: 20, jitter: 0 };
  const management = createManagementClient({
    baseUrl: sb.info.apiUrl,
    credentials: staticCredentials(
      'test-key',
      {
        organizationId: sb.info.organizationId,
        keyId: sb.info.keyId,
        keySecret: sb.info.keySecret,
      },
      managementAuth,
    ),
    rateLimit: false,
    retry,
    timeoutMs: 2_000,
  });
  const observability = createObservabilityClient({
    baseUrl: sb.info.observabilityUrl,
    credentials: staticCredentials(
      'test-token',
      { token: sb.info.observabilityToken },
      observabilityTokenSecret,
    ),
    rateLimit: false,
    retry,
    timeoutMs: 2_000,
  });
  return createObservabilityBackend({
    mode: 'managed',
    management,
    observability,
    serviceId: sb.info.serviceId,
  });
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

export function declared(
  webhookId: string,
  tileName: string,
  name: string,
  threshold = 10,
  extra: Partial<DeclaredAlertDetail> = {},
): DeclaredAlertDetail {
  return {
    tileName,
    name,
    threshold,
    thresholdType: 'above',
    interval: '5m',
    channel: { type: 'webhook', webhookId },
    message: `${name} fired`,
    ...extra,
  };
}

export function syncedEvent(
  dash: Dashboard,
  alerts: DeclaredAlertDetail[],
  at: string,
  key = `dashboards/${dash.name}.yaml`,
): DashboardSyncedEvent {
  return {
    source: 'cloudops',
    'detail-type': DASHBOARD_SYNCED,
    time: at,
    detail: {
      dashboardKey: key,
      dashboardId: dash.id,
      name: dash.name,
      sourceFile: key,
      syncedAt: at,
      tiles: dash.tiles.map((t) => ({ name: t.name, id: t.id })),
      alerts,
    },
  };
}

export function requestEvent(
  key: string,
  alert: CreateAlertBody,
  at: string,
): AlertProvisionRequestedEvent {
  return {
    source: 'team.payments',
    'detail-type': ALERT_PROVISION_REQUESTED,
    time: at,
    detail: { key, alert },
  };
}

export function tileAlert(
  dash: Dashboard,
  tileName: string,
  webhookId: string,
  name: string,
  threshold: number,
): CreateAlertBody {
  const tile = dash.tiles.find((t) => t.name === tileName);
  if (!tile) throw new Error(`test set-up: no tile ${tileName}`);
  return {
    source: 'tile',
    dashboardId: dash.id,
    tileId: tile.id,
    name,
    threshold,
    thresholdType: 'above',
    interval: '1m',
    channel: { type: 'webhook', webhookId },
    message: `${name}!`,
  };
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

export const iso = (ms: number) => new Date(Date.UTC(2025, 0, 1) + ms).toISOString();
