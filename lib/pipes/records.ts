/**
 * The watchdog's records in the watch store: one scope per service (`<org>#<service>`, the
 * table's pk since the first release), a record per pipe by its id and the service's own
 * record as `#service`, so one query reads everything a service's pass needs.
 */
import type { RecordIo } from '../watch/claims';
import { parseRecord, recordIo, type WatchStore } from '../watch/store';
import { pipeRecord, serviceRecord, type PipeRecord, type ServiceRecord } from './types';

const SERVICE_RECORD = '#service';

const scopeOf = (organizationId: string, serviceId: string) => `${organizationId}#${serviceId}`;

export interface ServiceState {
  pipes: PipeRecord[];
  service: ServiceRecord | undefined;
}

/** Every record of one service (one request in DynamoDB). */
export async function loadService(
  store: WatchStore,
  organizationId: string,
  serviceId: string,
): Promise<ServiceState> {
  const scope = scopeOf(organizationId, serviceId);
  const state: ServiceState = { pipes: [], service: undefined };
  for (const { id, record } of await store.list(scope)) {
    if (id === SERVICE_RECORD) state.service = parseRecord(store, serviceRecord, scope, id, record);
    else state.pipes.push(parseRecord(store, pipeRecord, scope, id, record));
  }
  return state;
}

export function pipeIo(store: WatchStore, record: PipeRecord): RecordIo<PipeRecord> {
  const scope = scopeOf(record.organizationId, record.serviceId);
  return recordIo(store, pipeRecord, scope, record.pipeId);
}

export function serviceIo(
  store: WatchStore,
  organizationId: string,
  serviceId: string,
): RecordIo<ServiceRecord> {
  return recordIo(store, serviceRecord, scopeOf(organizationId, serviceId), SERVICE_RECORD);
}
