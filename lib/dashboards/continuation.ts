/**
 * Resume, never time out: a run that reaches its deadline stops between two writes, keeps what
 * it saw in sync in the manifest, and puts a `Dashboard Sync Continued` event on the bus; a rule
 * invokes the sync again with it, and that run plans only what is still pending (creates found
 * again by their marker, never made twice). The chain ends when a run finishes, and also when a
 * run leaves no less pending than the one before (no progress: the schedule takes it from
 * there), so it cannot loop.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import * as z from 'zod/mini';
import { safeInteger } from '../schemas/builders';
import { CloudOpsError } from '../errors';
import { putEvents } from '../events/put-events';
import { DASHBOARD_SYNC_CONTINUED, EVENT_SOURCE } from '../events/schemas';

export { DASHBOARD_SYNC_CONTINUED };

export const continuationDetail = z.lazy(() =>
  z.object({
    /** 2 for the first continuation of a run, and so on. */
    round: z.number().check(safeInteger(), z.gte(2)),
    /** Dashboards (and alerts) the previous run left to write. */
    pending: z.number().check(safeInteger(), z.gte(0)),
  }),
);
export type ContinuationDetail = z.infer<typeof continuationDetail>;

/** Where a run stands when it stops early. */
export interface Progress {
  /** This run's round (1 unless it continues another). */
  round: number;
  /** Changes written by this run. */
  applied: number;
  /** Changes still to write. */
  pending: number;
  /** What the previous run left (a continuation), for the no-progress check. */
  pendingBefore?: number;
}

/** The next round, or undefined when continuing would not move things forward. */
export function nextRound(progress: Progress): ContinuationDetail | undefined {
  if (progress.pending === 0 || progress.applied === 0) return undefined;
  if (progress.pendingBefore !== undefined && progress.pending >= progress.pendingBefore)
    return undefined;
  return { round: progress.round + 1, pending: progress.pending };
}

/** Sends the continuation (one PutEvents entry, tried twice). */
export async function sendContinuation(
  client: Pick<EventBridgeClient, 'send'>,
  eventBusName: string,
  detail: ContinuationDetail,
): Promise<void> {
  const [refused] = await putEvents(
    client,
    [
      {
        EventBusName: eventBusName,
        Source: EVENT_SOURCE,
        DetailType: DASHBOARD_SYNC_CONTINUED,
        Detail: JSON.stringify(detail),
      },
    ],
    { attempts: 2 },
  );
  if (refused)
    throw new CloudOpsError(
      `EventBridge refused the ${DASHBOARD_SYNC_CONTINUED} event (${refused.kind === 'rejected' ? refused.code : refused.kind}); the next scheduled run goes on instead`,
    );
}
