/**
 * An in-memory stand-in for the observability service (not for our code): it implements the
 * real tile-id rule of API-FACTS (PUT replaces tiles; a tile keeps its id only when the
 * request names an existing one; alerts on removed tiles are deleted) and counts calls.
 */
import { apiError } from '../../../lib/api/errors';
import type { ObservabilityBackend } from '../../../lib/api/observability-backend';
import type { Alert, Dashboard, DashboardWrite, Tile } from '../../../lib/schemas';

export interface FakeBackend extends ObservabilityBackend {
  dashboards: Dashboard[];
  alerts: Alert[];
  calls: string[];
  /** Runs once before the next getDashboard answers (a concurrent edit). */
  beforeGet?: (id: string) => void;
}

export function createFakeBackend(): FakeBackend {
  let seq = 0;
  const nextId = (prefix: string) => `${prefix}${(++seq).toString(16).padStart(8, '0')}`;
  const notFound = (method: string, path: string) =>
    apiError({ method, path, status: 404, apiMessage: 'Dashboard not found' });
  const find = (id: string, method: string) => {
    const d = fake.dashboards.find((x) => x.id === id);
    if (!d) throw notFound(method, `/dashboards/${id}`);
    return d;
  };
  const assign = (tiles: DashboardWrite['tiles'], existing: Set<string>): Tile[] => {
    const used = new Set<string>();
    return (tiles ?? []).map((t) => {
      const keep = t.id !== undefined && existing.has(t.id) && !used.has(t.id);
      const id = keep ? t.id! : nextId('t');
      used.add(id);
      return { ...structuredClone(t), id };
    });
  };
  const fake: FakeBackend = {
    mode: 'open-source',
    dashboards: [],
    alerts: [],
    calls: [],
    listDashboards() {
      fake.calls.push('list');
      return Promise.resolve(structuredClone(fake.dashboards));
    },
    getDashboard(id) {
      fake.calls.push(`get ${id}`);
      const hook = fake.beforeGet;
      fake.beforeGet = undefined;
      hook?.(id);
      return Promise.resolve(structuredClone(find(id, 'GET')));
    },
    createDashboard(body) {
      fake.calls.push('create');
      const d: Dashboard = {
        id: nextId('d'),
        name: body.name ?? '',
        tags: body.tags ?? [],
        tiles: assign(body.tiles, new Set()),
      };
      fake.dashboards.push(d);
      return Promise.resolve(structuredClone(d));
    },
    updateDashboard(id, body) {
      fake.calls.push(`update ${id}`);
      const d = find(id, 'PUT');
      if (body.name !== undefined) d.name = body.name;
      if (body.tags !== undefined) d.tags = body.tags;
      if (body.tiles !== undefined) {
        d.tiles = assign(body.tiles, new Set(d.tiles.map((t) => t.id)));
        const kept = new Set(d.tiles.map((t) => t.id));
        fake.alerts = fake.alerts.filter(
          (a) => a.dashboard !== id || !a.tileId || kept.has(a.tileId),
        );
      }
      return Promise.resolve(structuredClone(d));
    },
    deleteDashboard(id) {
      fake.calls.push(`delete ${id}`);
      find(id, 'DELETE');
      fake.dashboards = fake.dashboards.filter((d) => d.id !== id);
      fake.alerts = fake.alerts.filter((a) => a.dashboard !== id);
      return Promise.resolve();
    },
    listAlerts() {
      fake.calls.push('listAlerts');
      return Promise.resolve(structuredClone(fake.alerts));
    },
    getAlert(id) {
      const a = fake.alerts.find((x) => x.id === id);
      return a
        ? Promise.resolve(structuredClone(a))
        : Promise.reject(notFound('GET', `/alerts/${id}`));
    },
    createAlert(body) {
      fake.calls.push('createAlert');
      const { dashboardId, ...rest } = structuredClone(body);
      const a: Alert = { ...rest, id: nextId('a'), dashboard: dashboardId };
      fake.alerts.push(a);
      return Promise.resolve(structuredClone(a));
    },
    updateAlert(id, body) {
      fake.calls.push(`updateAlert ${id}`);
      const i = fake.alerts.findIndex((a) => a.id === id);
      if (i < 0) return Promise.reject(notFound('PUT', `/alerts/${id}`));
      const { dashboardId, ...rest } = structuredClone(body);
      fake.alerts[i] = { ...rest, id, dashboard: dashboardId ?? fake.alerts[i].dashboard };
      return Promise.resolve(structuredClone(fake.alerts[i]));
    },
    deleteAlert(id) {
      fake.calls.push(`deleteAlert ${id}`);
      fake.alerts = fake.alerts.filter((a) => a.id !== id);
      return Promise.resolve();
    },
  };
  return fake;
}
