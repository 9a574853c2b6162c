import { route } from '../router';
import type { Route } from '../router';
import type { Store } from '../store';
import { alertView, createAlert, deleteAlert, findAlert, listAlerts, updateAlert } from './alerts';
import {
  createDashboard,
  dashboardView,
  deleteDashboard,
  findDashboard,
  listDashboards,
  updateDashboard,
} from './dashboards';

interface ObservabilityRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** The service (team) the bearer token is bound to. */
  serviceId: string;
  store: Store;
  now: number;
}

/** A paginated list: answered as `{ data, meta }` with an `X-Total-Count` header. */
export class Paged {
  constructor(
    readonly data: unknown[],
    readonly meta: { total: number; limit: number; offset: number },
  ) {}
}

/** Returns the `data` payload, or a `Paged` list; `undefined` answers `{}` (DELETE). */
export type ObservabilityHandler = (req: ObservabilityRequest) => unknown;

/** `/api/v2` as the open-source deployment serves it: full dashboard and alert CRUD. */
export const apiV2Routes: Route<ObservabilityHandler>[] = [
  route('GET', '/api/v2/dashboards', (r) =>
    listDashboards(r.store, r.serviceId).map(dashboardView),
  ),
  route('POST', '/api/v2/dashboards', (r) =>
    dashboardView(createDashboard(r.store, r.serviceId, r.body, r.now)),
  ),
  route('GET', '/api/v2/dashboards/:dashboardId', (r) =>
    dashboardView(findDashboard(r.store, r.serviceId, r.params.dashboardId)),
  ),
  route('PUT', '/api/v2/dashboards/:dashboardId', (r) =>
    dashboardView(updateDashboard(r.store, r.serviceId, r.params.dashboardId, r.body, r.now)),
  ),
  route('DELETE', '/api/v2/dashboards/:dashboardId', (r) =>
    deleteDashboard(r.store, r.serviceId, r.params.dashboardId),
  ),
  route('GET', '/api/v2/alerts', (r) => listAlerts(r.store, r.serviceId).map(alertView)),
  route('POST', '/api/v2/alerts', (r) =>
    alertView(createAlert(r.store, r.serviceId, r.body, r.now)),
  ),
  route('GET', '/api/v2/alerts/:alertId', (r) =>
    alertView(findAlert(r.store, r.serviceId, r.params.alertId)),
  ),
  route('PUT', '/api/v2/alerts/:alertId', (r) =>
    alertView(updateAlert(r.store, r.serviceId, r.params.alertId, r.body, r.now)),
  ),
  route('DELETE', '/api/v2/alerts/:alertId', (r) =>
    deleteAlert(r.store, r.serviceId, r.params.alertId),
  ),
];
