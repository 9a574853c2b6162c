/**
 * Every management API path (`/v1/...`), one export per path: an operation group imports them
 * as a namespace and a function bundles only the paths of the operations it calls.
 */
import {
  SEGMENTS as S,
  buildPath,
  param,
  type ApiPath,
  type ObservabilityResource,
  type Part,
} from '../paths';

const build = (parts: readonly Part[]): ApiPath => buildPath(S.managementPrefix, parts);

const orgParts = (organizationId: string): Part[] => [
  S.organizations,
  param('organizationId', organizationId),
];
const serviceParts = (organizationId: string, serviceId: string): Part[] => [
  ...orgParts(organizationId),
  S.services,
  param('serviceId', serviceId),
];
const pipeParts = (o: string, s: string, pipeId: string): Part[] => [
  ...serviceParts(o, s),
  S.pipes,
  param('pipeId', pipeId),
];

export const keys = (o: string) => build([...orgParts(o), S.keys]);
export const key = (o: string, keyRecordId: string) =>
  build([...orgParts(o), S.keys, param('keyId', keyRecordId)]);
/** The organization's audit trail between two times (`from_date`, `to_date`: date-time). */
export const activities = (o: string, range: { from: string; to: string }) => {
  const { path, route } = build([...orgParts(o), S.activities]);
  const query = new URLSearchParams({ from_date: range.from, to_date: range.to });
  return { path: `${path}?${query.toString()}`, route };
};
export const pipes = (o: string, s: string) => build([...serviceParts(o, s), S.pipes]);
export const pipe = (o: string, s: string, p: string) => build(pipeParts(o, s, p));
export const pipeSettings = (o: string, s: string, p: string) =>
  build([...pipeParts(o, s, p), S.settings]);
export const pipeState = (o: string, s: string, p: string) =>
  build([...pipeParts(o, s, p), S.state]);
export const serviceMetrics = (o: string, s: string) =>
  build([...serviceParts(o, s), S.prometheus]);
export const organizationMetrics = (o: string) => build([...orgParts(o), S.prometheus]);
export const observability = (o: string, s: string, resource: ObservabilityResource) =>
  build([...serviceParts(o, s), S.observability, resource]);
export const observabilityItem = (
  o: string,
  s: string,
  resource: ObservabilityResource,
  id: string,
) => build([...serviceParts(o, s), S.observability, resource, param('id', id)]);
/** The literal `validate` segment, served before `dashboards/{dashboardId}`. */
export const dashboardValidate = (o: string, s: string) =>
  build([...serviceParts(o, s), S.observability, S.dashboards, S.validate]);
