/** The current service (API-FACTS, "The service as it stands today"). */
import { ReplyError } from '../../errors';
import { ApiError } from '../../errors';
import { textReply } from '../../http';
import type { ManagementHandler } from '../../management/context';
import { Paged } from '../../observability/routes';
import type { ObservabilityHandler } from '../../observability/routes';
import { route } from '../../router';
import type { Route } from '../../router';
import type { SourceRow, Store, WebhookRow } from '../../store';
import type { Profile } from '../index';
import {
  alertPage,
  alertView,
  createAlert,
  deleteAlert,
  findAlert,
  listAlerts,
  updateAlert,
} from './alerts';
import {
  createDashboard,
  dashboardIssues,
  dashboardView,
  deleteDashboard,
  findDashboard,
  listDashboards,
  updateDashboard,
} from './dashboards';
import { metricsRoutes } from '../../metrics/routes';
import { currentKeyRules } from './keys';
import { paginationQuery } from './schemas';
import { seedCurrent } from './seed';
import { storedTile } from './tiles';
import { parseOr400 } from './validate';

function sourceView(source: SourceRow): Record<string, unknown> {
  return {
    id: source.id,
    name: source.name,
    kind: source.kind,
    connection: source.connection,
    from: source.from,
    ...(source.kind === 'metric'
      ? {
          metricTables: {
            gauge: 'otel_metrics_gauge',
            sum: 'otel_metrics_sum',
            histogram: 'otel_metrics_histogram',
          },
        }
      : {}),
  };
}

function webhookView(webhook: WebhookRow): Record<string, unknown> {
  return {
    id: webhook.id,
    name: webhook.name,
    service: webhook.service ?? 'generic',
    url: webhook.url,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

const sourcesOf = (store: Store, serviceId: string) =>
  store.state.sources.filter((s) => s.serviceId === serviceId).map(sourceView);
const webhooksOf = (store: Store, serviceId: string) =>
  store.state.webhooks.filter((w) => w.serviceId === serviceId).map(webhookView);

/** On `/api/v2` a missing dashboard is a plain-text 404 (router code). */
function orTextNotFound<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      throw new ReplyError(textReply(404, 'Not Found'));
    throw error;
  }
}

const apiV2Routes: Route<ObservabilityHandler>[] = [
  route('GET', '/api/v2/dashboards', (r) =>
    listDashboards(r.store, r.serviceId).map(dashboardView),
  ),
  route('POST', '/api/v2/dashboards', (r) =>
    dashboardView(createDashboard(r.store, r.serviceId, r.body, r.now)),
  ),
  // A dry run: always 200; `normalized` is the dashboard as it would be stored.
  route('POST', '/api/v2/dashboards/validate', (r) => {
    const { issues, input } = dashboardIssues(r.body);
    return {
      valid: issues.length === 0,
      errors: issues,
      normalized: input
        ? { ...input, tiles: input.tiles.map((t) => storedTile(t, t.id ?? '')) }
        : null,
    };
  }),
  route('GET', '/api/v2/dashboards/:dashboardId', (r) =>
    orTextNotFound(() => dashboardView(findDashboard(r.store, r.serviceId, r.params.dashboardId))),
  ),
  route('PUT', '/api/v2/dashboards/:dashboardId', (r) =>
    orTextNotFound(() =>
      dashboardView(updateDashboard(r.store, r.serviceId, r.params.dashboardId, r.body, r.now)),
    ),
  ),
  // Deleting a missing dashboard answers 200 {} (router code).
  route('DELETE', '/api/v2/dashboards/:dashboardId', (r) => {
    if (listDashboards(r.store, r.serviceId).some((d) => d.id === r.params.dashboardId))
      deleteDashboard(r.store, r.serviceId, r.params.dashboardId);
    return undefined;
  }),
  route('GET', '/api/v2/alerts', (r) => {
    const page = alertPage(r.store, r.serviceId, r.query);
    return new Paged(page.data, page.meta);
  }),
  route('POST', '/api/v2/alerts', (r) =>
    alertView(createAlert(r.store, r.serviceId, r.body, r.now, 'api'), 'api'),
  ),
  route('GET', '/api/v2/alerts/:alertId', (r) =>
    alertView(findAlert(r.store, r.serviceId, r.params.alertId), 'api'),
  ),
  route('PUT', '/api/v2/alerts/:alertId', (r) =>
    alertView(updateAlert(r.store, r.serviceId, r.params.alertId, r.body, r.now, 'api'), 'api'),
  ),
  route('DELETE', '/api/v2/alerts/:alertId', (r) =>
    deleteAlert(r.store, r.serviceId, r.params.alertId),
  ),
  route('GET', '/api/v2/sources', (r) => sourcesOf(r.store, r.serviceId)),
  route('GET', '/api/v2/webhooks', (r) => {
    const { limit, offset } = parseOr400('Query', paginationQuery, Object.fromEntries(r.query));
    const all = webhooksOf(r.store, r.serviceId);
    return new Paged(all.slice(offset, offset + limit), { total: all.length, limit, offset });
  }),
];

const OBS = '/v1/organizations/:organizationId/services/:serviceId/observability';
const handler = (run: ManagementHandler['run']): ManagementHandler => ({ admin: false, run });

/** Through the management API: same state, management envelope, unpaginated lists. */
const managementObservabilityRoutes: Route<ManagementHandler>[] = [
  route(
    'GET',
    `${OBS}/dashboards`,
    handler((r) => listDashboards(r.store, r.params.serviceId).map(dashboardView)),
  ),
  route(
    'POST',
    `${OBS}/dashboards`,
    handler((r) => dashboardView(createDashboard(r.store, r.params.serviceId, r.body, r.now))),
  ),
  route(
    'GET',
    `${OBS}/dashboards/:dashboardId`,
    handler((r) => dashboardView(findDashboard(r.store, r.params.serviceId, r.params.dashboardId))),
  ),
  route(
    'PUT',
    `${OBS}/dashboards/:dashboardId`,
    handler((r) =>
      dashboardView(
        updateDashboard(r.store, r.params.serviceId, r.params.dashboardId, r.body, r.now),
      ),
    ),
  ),
  route(
    'DELETE',
    `${OBS}/dashboards/:dashboardId`,
    handler((r) => deleteDashboard(r.store, r.params.serviceId, r.params.dashboardId)),
  ),
  route(
    'GET',
    `${OBS}/alerts`,
    handler((r) => listAlerts(r.store, r.params.serviceId).map((a) => alertView(a, 'management'))),
  ),
  route(
    'POST',
    `${OBS}/alerts`,
    handler((r) =>
      alertView(
        createAlert(r.store, r.params.serviceId, r.body, r.now, 'management'),
        'management',
      ),
    ),
  ),
  route(
    'GET',
    `${OBS}/alerts/:alertId`,
    handler((r) =>
      alertView(findAlert(r.store, r.params.serviceId, r.params.alertId), 'management'),
    ),
  ),
  route(
    'PUT',
    `${OBS}/alerts/:alertId`,
    handler((r) =>
      alertView(
        updateAlert(r.store, r.params.serviceId, r.params.alertId, r.body, r.now, 'management'),
        'management',
      ),
    ),
  ),
  route(
    'DELETE',
    `${OBS}/alerts/:alertId`,
    handler((r) => deleteAlert(r.store, r.params.serviceId, r.params.alertId)),
  ),
  route(
    'GET',
    `${OBS}/sources`,
    handler((r) => sourcesOf(r.store, r.params.serviceId)),
  ),
  route(
    'GET',
    `${OBS}/webhooks`,
    handler((r) => webhooksOf(r.store, r.params.serviceId)),
  ),
];

export const currentProfile: Profile = {
  name: 'current',
  apiV2Routes,
  managementObservabilityRoutes,
  metricsRoutes,
  keys: currentKeyRules,
  invalidObjectIdMessage: () => 'Params validation failed: id: Invalid ObjectId',
  seed: seedCurrent,
};
