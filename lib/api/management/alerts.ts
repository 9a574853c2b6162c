/**
 * One service's observability objects through the management API, with the Basic key alone
 * (August 2026 contract): the access every object operation goes through, and the alerts alone
 * (provision-alerts' management group; observability.ts adds dashboards and the other objects).
 */
import { alertOperations, type ObjectAccess } from '../observability-alerts';
import { PAGE_LIMIT, pagedList, toPage } from '../pages';
import { withPage } from '../paths';
import type { ManagementConnection } from './connection';
import * as P from './paths';

/** The observability objects of one service: their paths, the key's call, one page of a list. */
export function serviceAccess(
  { organizationId: org, call }: ManagementConnection,
  serviceId: string,
): ObjectAccess {
  return {
    collection: async (resource) => P.observability(await org(), serviceId, resource),
    item: async (resource, id) => P.observabilityItem(await org(), serviceId, resource, id),
    call,
    async page(path, item, offset, opts) {
      // The document declares no paging parameters: the first page is asked as declared.
      const asked = offset === 0 ? path : withPage(path, PAGE_LIMIT, offset);
      const list = await call({ method: 'GET', path: asked, schema: pagedList(item) }, opts);
      return toPage(list.data, list.meta);
    },
  };
}

export type AlertManagementOperations = ReturnType<typeof alertManagementOperations>;

/** The alerts of a service and nothing else: what provision-alerts calls in managed mode. */
export function alertManagementOperations(connection: ManagementConnection) {
  return {
    alerts: (serviceId: string) => alertOperations(serviceAccess(connection, serviceId), false),
  };
}
