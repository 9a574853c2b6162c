import { route } from '../router';
import type { Route } from '../router';
import {
  alertView,
  createAlert,
  deleteAlert,
  findAlert,
  listAlerts,
  updateAlert,
} from '../observability/alerts';
import {
  createDashboard,
  dashboardView,
  deleteDashboard,
  findDashboard,
  listDashboards,
  updateDashboard,
} from '../observability/dashboards';
import type { ManagementHandler } from './context';

const OBS = '/v1/organizations/:organizationId/services/:serviceId/observability';

/** The service's observability objects through the management API: same state, management envelope. */
export const observabilityRoutes: Route<ManagementHandler>[] = [
  route('GET', `${OBS}/dashboards`, {
    admin: false,
    run: (r) => listDashboards(r.store, r.params.serviceId).map(dashboardView),
  }),
  route('POST', `${OBS}/dashboards`, {
    admin: false,
    run: (r) => dashboardView(createDashboard(r.store, r.params.serviceId, r.body, r.now)),
  }),
  route('GET', `${OBS}/dashboards/:dashboardId`, {
    admin: false,
    run: (r) => dashboardView(findDashboard(r.store, r.params.serviceId, r.params.dashboardId)),
  }),
  route('PUT', `${OBS}/dashboards/:dashboardId`, {
    admin: false,
    run: (r) =>
      dashboardView(
        updateDashboard(r.store, r.params.serviceId, r.params.dashboardId, r.body, r.now),
      ),
  }),
  route('DELETE', `${OBS}/dashboards/:dashboardId`, {
    admin: false,
    run: (r) => deleteDashboard(r.store, r.params.serviceId, r.params.dashboardId),
  }),
  route('GET', `${OBS}/alerts`, {
    admin: false,
    run: (r) => listAlerts(r.store, r.params.serviceId).map(alertView),
  }),
  route('POST', `${OBS}/alerts`, {
    admin: false,
    run: (r) => alertView(createAlert(r.store, r.params.serviceId, r.body, r.now)),
  }),
  route('GET', `${OBS}/alerts/:alertId`, {
    admin: false,
    run: (r) => alertView(findAlert(r.store, r.params.serviceId, r.params.alertId)),
  }),
  route('PUT', `${OBS}/alerts/:alertId`, {
    admin: false,
    run: (r) =>
      alertView(updateAlert(r.store, r.params.serviceId, r.params.alertId, r.body, r.now)),
  }),
  route('DELETE', `${OBS}/alerts/:alertId`, {
    admin: false,
    run: (r) => deleteAlert(r.store, r.params.serviceId, r.params.alertId),
  }),
  route('GET', `${OBS}/sources`, {
    admin: false,
    run: (r) =>
      r.store.state.sources
        .filter((s) => s.serviceId === r.params.serviceId)
        .map(({ serviceId: _serviceId, ...source }) => ({ ...source })),
  }),
];
