/** Auto-restart, pure: whether a failed pipe gets a start attempt now, within its budget. */
import { pipeDedupKey, type PipeNotice } from '../watch/subjects/pipe';
import type { PipeRecord } from './types';

/** Only auto-restart streaming / object-storage pipes: a database (CDC) pipe needs a person. */
const RESTARTABLE = new Set(['kafka', 'objectStorage', 'kinesis']);

interface RestartBudget {
  /** At most this many start attempts per pipe inside `windowMs`. */
  maxAttempts: number;
  windowMs: number;
}

/**
 * The pipe's attempts still inside the window, and a notice when one more is made now (the
 * service accepts `start` only from Stopped or Failed; InternalError needs a person).
 */
export function planRestart(
  next: PipeRecord,
  pipe: { state: string; sourceKind?: string },
  now: number,
  budget: RestartBudget,
): { restarts: number[]; notice?: PipeNotice } {
  const restarts = next.restarts.filter((t) => now - t < budget.windowMs);
  if (pipe.state !== 'Failed' || !RESTARTABLE.has(pipe.sourceKind ?? '')) return { restarts };
  if (restarts.length >= budget.maxAttempts) return { restarts };
  const ids = {
    organizationId: next.organizationId,
    serviceId: next.serviceId,
    pipeId: next.pipeId,
  };
  const attempt = restarts.length + 1;
  return {
    restarts: [...restarts, now],
    notice: {
      subject: 'pipe',
      id: `${ids.organizationId}/${ids.serviceId}/${ids.pipeId}/restart/${now}`,
      dedupKey: pipeDedupKey(ids, 'restart'),
      resolves: false,
      kind: 'restart',
      severity: 'warning',
      ...ids,
      pipeName: next.pipeName,
      ...(next.sourceKind ? { sourceKind: next.sourceKind } : {}),
      from: pipe.state,
      to: pipe.state,
      at: new Date(now).toISOString(),
      since: new Date(next.since).toISOString(),
      message: `Auto-restarting pipe ${next.pipeName} (attempt ${attempt} of ${budget.maxAttempts} per ${Math.round(budget.windowMs / 60_000)} min)`,
    },
  };
}
