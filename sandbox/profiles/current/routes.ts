/**
 * The observability objects of the current service, once for both surfaces: `/api/v2` (bearer
 * token, `{ data }`, lists paged as `{ data, meta }`) and the management API's
 * `/v1/.../services/{serviceId}/observability` (Basic key, `result`, lists as plain arrays).
 */
import { ApiError, ReplyError } from '../../errors';
import { textReply } from '../../http';
import type { ManagementHandler } from '../../management/context';
import { Paged } from '../../observability/routes';
import type { ObservabilityHandler } from '../../observability/routes';
import { route } from '../../router';
import type { Route } from '../../router';
import type { Store } from '../../store';
import { alertView, createAlert, deleteAlert, findAlert, listAlerts, updateAlert } from './alerts';
import {
  createDashboard,
  dashboardView,
  deleteDashboard,
  findDashboard,
  listDashboards,
  updateDashboard,
  validateDashboard,
} from './dashboards';
import {
  createSavedSearch,
  deleteSavedSearch,
  findSavedSearch,
  listSavedSearches,
  savedSearchView,
  updateSavedSearch,
} from './saved-searches';
import { paginationQuery } from './schemas';
import {
  createSource,
  deleteSource,
  getSource,
  listSources,
  sourceView,
  updateSource,
} from './sources';
import { parseOr400 } from './validate';
import { createWebhook, deleteWebhook, listWebhooks, updateWebhook, webhookView } from './webhooks';

type Surface = 'api' | 'management';

interface ObjectRequest {
  store: Store;
  serviceId: string;
  params: Record<string, string>;
  body: unknown;
  query: URLSearchParams;
  now: number;
  surface: Surface;
}

interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** After `/api/v2` or `.../observability`. */
  path: string;
  run(r: ObjectRequest): unknown;
}

const op = (method: Operation['method'], path: string, run: Operation['run']): Operation => ({
  method,
  path,
  run,
});

/** A list described as paginated: `limit` (1-1000, default 1000) and `offset` on both surfaces. */
function paged<T>(r: ObjectRequest, rows: readonly T[], view: (row: T) => unknown): Paged {
  const { limit, offset } = parseOr400('Query', paginationQuery, Object.fromEntries(r.query));
  return new Paged(rows.slice(offset, offset + limit).map(view), {
    total: rows.length,
    limit,
    offset,
  });
}

/** On `/api/v2` a missing dashboard is a plain-text 404 (router code). */
function orTextNotFound<T>(r: ObjectRequest, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (r.surface === 'api' && error instanceof ApiError && error.status === 404)
      throw new ReplyError(textReply(404, 'Not Found'));
    throw error;
  }
}

const dashboards: Operation[] = [
  op('GET', '/dashboards', (r) => listDashboards(r.store, r.serviceId).map(dashboardView)),
  op('POST', '/dashboards', (r) =>
    dashboardView(createDashboard(r.store, r.serviceId, r.body, r.now)),
  ),
  // The literal `validate` before `{dashboardId}`: a dry run, always 200.
  op('POST', '/dashboards/validate', (r) => validateDashboard(r.store, r.serviceId, r.body)),
  op('GET', '/dashboards/:dashboardId', (r) =>
    orTextNotFound(r, () =>
      dashboardView(findDashboard(r.store, r.serviceId, r.params.dashboardId)),
    ),
  ),
  op('PUT', '/dashboards/:dashboardId', (r) =>
    orTextNotFound(r, () =>
      dashboardView(updateDashboard(r.store, r.serviceId, r.params.dashboardId, r.body, r.now)),
    ),
  ),
  op('DELETE', '/dashboards/:dashboardId', (r) => {
    // `/api/v2` answers 200 {} for a missing dashboard (router code); the management API a 404.
    const exists = listDashboards(r.store, r.serviceId).some((d) => d.id === r.params.dashboardId);
    if (exists || r.surface === 'management')
      deleteDashboard(r.store, r.serviceId, r.params.dashboardId);
  }),
];

const alerts: Operation[] = [
  op('GET', '/alerts', (r) =>
    paged(r, listAlerts(r.store, r.serviceId), (a) => alertView(a, r.surface)),
  ),
  op('POST', '/alerts', (r) =>
    alertView(createAlert(r.store, r.serviceId, r.body, r.now, r.surface), r.surface),
  ),
  op('GET', '/alerts/:alertId', (r) =>
    alertView(findAlert(r.store, r.serviceId, r.params.alertId), r.surface),
  ),
  op('PUT', '/alerts/:alertId', (r) =>
    alertView(
      updateAlert(r.store, r.serviceId, r.params.alertId, r.body, r.now, r.surface),
      r.surface,
    ),
  ),
  op('DELETE', '/alerts/:alertId', (r) => deleteAlert(r.store, r.serviceId, r.params.alertId)),
];

const webhooks: Operation[] = [
  op('GET', '/webhooks', (r) => paged(r, listWebhooks(r.store, r.serviceId), webhookView)),
  op('POST', '/webhooks', (r) => webhookView(createWebhook(r.store, r.serviceId, r.body, r.now))),
  op('PUT', '/webhooks/:webhookId', (r) =>
    webhookView(updateWebhook(r.store, r.serviceId, r.params.webhookId, r.body, r.now)),
  ),
  op('DELETE', '/webhooks/:webhookId', (r) =>
    deleteWebhook(r.store, r.serviceId, r.params.webhookId, r.surface === 'management'),
  ),
];

const savedSearches: Operation[] = [
  op('GET', '/saved-searches', (r) =>
    paged(r, listSavedSearches(r.store, r.serviceId), (s) => savedSearchView(r.store, s)),
  ),
  op('POST', '/saved-searches', (r) =>
    savedSearchView(r.store, createSavedSearch(r.store, r.serviceId, r.body, r.now)),
  ),
  op('GET', '/saved-searches/:savedSearchId', (r) =>
    savedSearchView(r.store, findSavedSearch(r.store, r.serviceId, r.params.savedSearchId)),
  ),
  op('PUT', '/saved-searches/:savedSearchId', (r) =>
    savedSearchView(
      r.store,
      updateSavedSearch(r.store, r.serviceId, r.params.savedSearchId, r.body, r.now),
    ),
  ),
  op('DELETE', '/saved-searches/:savedSearchId', (r) =>
    deleteSavedSearch(r.store, r.serviceId, r.params.savedSearchId),
  ),
];

const sources: Operation[] = [
  // Not paginated on either surface.
  op('GET', '/sources', (r) => listSources(r.store, r.serviceId).map(sourceView)),
  op('POST', '/sources', (r) => sourceView(createSource(r.store, r.serviceId, r.body, r.now))),
  op('GET', '/sources/:sourceId', (r) =>
    sourceView(getSource(r.store, r.serviceId, r.params.sourceId)),
  ),
  op('PUT', '/sources/:sourceId', (r) =>
    sourceView(updateSource(r.store, r.serviceId, r.params.sourceId, r.body)),
  ),
  op('DELETE', '/sources/:sourceId', (r) => deleteSource(r.store, r.serviceId, r.params.sourceId)),
];

const OPERATIONS = [...dashboards, ...alerts, ...webhooks, ...savedSearches, ...sources];

export const apiV2Routes: Route<ObservabilityHandler>[] = OPERATIONS.map((o) =>
  route(o.method, `/api/v2${o.path}`, (r) => o.run({ ...r, surface: 'api' })),
);

const OBS = '/v1/organizations/:organizationId/services/:serviceId/observability';

/** The management API answers a paged list as its plain `result` array. */
export const managementObservabilityRoutes: Route<ManagementHandler>[] = OPERATIONS.map((o) =>
  route(o.method, `${OBS}${o.path}`, {
    admin: false,
    run: (r) => {
      const result = o.run({ ...r, serviceId: r.params.serviceId, surface: 'management' });
      return result instanceof Paged ? result.data : result;
    },
  }),
);
