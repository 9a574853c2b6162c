/**
 * Which dashboards go to which service. A file may list its services (`services: [...]`): it is
 * then planned once per listed service. A file without the list goes to the default service
 * (`--service`, else the first configured one), as before the list existed. `--service` also
 * restricts the run to that one service.
 */
import type { DesiredDashboard, FolderObjects } from './types';

export interface ServiceScope {
  /** Where files without `services:` go (`--service`, else the first configured service). */
  readonly defaultService: string;
  /** `--service`: plan and apply this service only. */
  readonly only?: string;
}

export interface ServiceGroup {
  service: string;
  /** Each group has its own copies: names resolve per service (each has its own sources). */
  dashboards: DesiredDashboard[];
  /** The folder's webhooks and saved searches: on the first group (the default service) only. */
  objects?: FolderObjects;
}

/**
 * One group per service, the default service first (always present, so `--prune` on it works
 * as before), then the services files list, in the order they first appear.
 */
export function groupByService(
  desired: readonly DesiredDashboard[],
  scope: ServiceScope,
): ServiceGroup[] {
  const groups = new Map<string, DesiredDashboard[]>();
  const add = (service: string, d?: DesiredDashboard) => {
    if (scope.only !== undefined && service !== scope.only) return;
    const list = groups.get(service) ?? [];
    groups.set(service, list);
    if (d) list.push(structuredClone(d));
  };
  const home = scope.only ?? scope.defaultService;
  add(home);
  for (const d of desired) for (const s of d.services ?? [home]) add(s, d);
  return [...groups].map(([service, dashboards]) => ({ service, dashboards }));
}
