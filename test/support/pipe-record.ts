/** A watchdog pipe record as a run leaves it: Running since `since`, nothing told, version 0. */
import type { PipeRecord } from '../../lib/pipes/types';

export function pipeRecord(since: number, extra: Partial<PipeRecord> = {}): PipeRecord {
  return {
    organizationId: 'org',
    serviceId: 'svc',
    pipeId: 'p1',
    pipeName: 'orders-kafka',
    state: 'Running',
    since,
    changes: [],
    flapping: false,
    lastSeenAt: since,
    stuckNotified: false,
    gone: false,
    missedRuns: 0,
    restarts: [],
    pending: [],
    version: 0,
    ...extra,
  };
}
