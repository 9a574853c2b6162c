import { ValidationError } from '../errors';

/** Every path segment of both APIs lives here (spec: `pipes`, `observability`, `/v1`, `/api/v2`). */
export const SEGMENTS = {
  managementPrefix: '/v1',
  observabilityPrefix: '/api/v2',
  organizations: 'organizations',
  services: 'services',
  keys: 'keys',
  activities: 'activities',
  pipes: 'pipes',
  settings: 'settings',
  state: 'state',
  observability: 'observability',
  dashboards: 'dashboards',
  alerts: 'alerts',
  sources: 'sources',
  webhooks: 'webhooks',
  prometheus: 'prometheus',
  savedSearches: 'saved-searches',
  validate: 'validate',
} as const;
const S = SEGMENTS;

/** The observability objects, each a collection with items (`/{resource}/{id}`). */
export type ObservabilityResource =
  | typeof S.dashboards
  | typeof S.alerts
  | typeof S.sources
  | typeof S.webhooks
  | typeof S.savedSearches;

/** A concrete path plus its route template (`/v1/organizations/{organizationId}/keys`). */
export interface ApiPath {
  readonly path: string;
  readonly route: string;
}

/** A literal segment, or a named parameter (encoded into the path, `{name}` in the route). */
export type Part = string | { readonly name: string; readonly value: string };

export const param = (name: string, value: string): Part => ({ name, value });

/** A path under `prefix` from its parts; an empty parameter is a ValidationError naming it. */
export function buildPath(prefix: string, parts: readonly Part[]): ApiPath {
  let path = prefix;
  let route = prefix;
  for (const part of parts) {
    if (typeof part === 'string') {
      path += `/${part}`;
      route += `/${part}`;
      continue;
    }
    if (typeof part.value !== 'string' || part.value.trim() === '') {
      throw new ValidationError(`path parameter ${part.name} must be a non-empty string`, {
        source: route,
        issues: [`${part.name}: required`],
      });
    }
    path += `/${encodeURIComponent(part.value)}`;
    route += `/{${part.name}}`;
  }
  return { path, route };
}

export const observabilityPaths = {
  collection: (resource: ObservabilityResource) => buildPath(S.observabilityPrefix, [resource]),
  item: (resource: ObservabilityResource, id: string) =>
    buildPath(S.observabilityPrefix, [resource, param('id', id)]),
  dashboardValidate: () => buildPath(S.observabilityPrefix, [S.dashboards, S.validate]),
};

/** A path with `limit` and `offset` (the lists described as paginated take them). */
export function withPage(path: ApiPath, limit: number, offset: number): ApiPath {
  return { ...path, path: `${path.path}?limit=${limit}&offset=${offset}` };
}

/** Joins a base URL (which may carry its own path prefix) and an API path. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}
