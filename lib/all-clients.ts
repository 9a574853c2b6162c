/**
 * The kit with every operation of both APIs: the CLI's and the tests'. A function names its
 * own, smaller kit (lib/api/kit.ts) so that its bundle carries only what it calls.
 */
import { DASHBOARDS_AND_ALERTS, type ClientKit } from './api/kit';
import { everyManagementOperation } from './api/management-client';

export const EVERY_OPERATION = {
  management: everyManagementOperation,
  observability: DASHBOARDS_AND_ALERTS,
} satisfies ClientKit<ReturnType<typeof everyManagementOperation>>;
