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

type Part = string | { readonly name: string; readonly value: string };

const param = (name: string, value: string): Part => ({ name, value });

function build(prefix: string, parts: readonly Part[]): ApiPath {
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

const org = (organizationId: string): Part[] => [
  S.organizations,
  param('organizationId', organizationId),
];
const service = (organizationId: string, serviceId: string): Part[] => [
  ...org(organizationId),
  S.services,
  param('serviceId', serviceId),
];
const pipe = (o: string, s: string, pipeId: string): Part[] => [
  ...service(o, s),
  S.pipes,
  param('pipeId', pipeId),
];

export const managementPaths = {
  keys: (o: string) => build(S.managementPrefix, [...org(o), S.keys]),
  key: (o: string, keyRecordId: string) =>
    build(S.managementPrefix, [...org(o), S.keys, param('keyId', keyRecordId)]),
  /** The organization's audit trail between two times (`from_date`, `to_date`: date-time). */
  activities: (o: string, range: { from: string; to: string }) => {
    const { path, route } = build(S.managementPrefix, [...org(o), S.activities]);
    const query = new URLSearchParams({ from_date: range.from, to_date: range.to });
    return { path: `${path}?${query.toString()}`, route };
  },
  pipes: (o: string, s: string) => build(S.managementPrefix, [...service(o, s), S.pipes]),
  pipe: (o: string, s: string, p: string) => build(S.managementPrefix, pipe(o, s, p)),
  pipeSettings: (o: string, s: string, p: string) =>
    build(S.managementPrefix, [...pipe(o, s, p), S.settings]),
  pipeState: (o: string, s: string, p: string) =>
    build(S.managementPrefix, [...pipe(o, s, p), S.state]),
  serviceMetrics: (o: string, s: string) =>
    build(S.managementPrefix, [...service(o, s), S.prometheus]),
  organizationMetrics: (o: string) => build(S.managementPrefix, [...org(o), S.prometheus]),
  observability: (o: string, s: string, resource: ObservabilityResource) =>
    build(S.managementPrefix, [...service(o, s), S.observability, resource]),
  observabilityItem: (o: string, s: string, resource: ObservabilityResource, id: string) =>
    build(S.managementPrefix, [...service(o, s), S.observability, resource, param('id', id)]),
  /** The literal `validate` segment, served before `dashboards/{dashboardId}`. */
  dashboardValidate: (o: string, s: string) =>
    build(S.managementPrefix, [...service(o, s), S.observability, S.dashboards, S.validate]),
};

export const observabilityPaths = {
  collection: (resource: ObservabilityResource) => build(S.observabilityPrefix, [resource]),
  item: (resource: ObservabilityResource, id: string) =>
    build(S.observabilityPrefix, [resource, param('id', id)]),
  dashboardValidate: () => build(S.observabilityPrefix, [S.dashboards, S.validate]),
};

/** A path with `limit` and `offset` (the lists described as paginated take them). */
export function withPage(path: ApiPath, limit: number, offset: number): ApiPath {
  return { ...path, path: `${path.path}?limit=${limit}&offset=${offset}` };
}

/** Joins a base URL (which may carry its own path prefix) and an API path. */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + path;
}
