import type { Context } from 'aws-lambda';

/**
 * Stop starting work this long before the Lambda's timeout, so the handler still answers (a
 * partial batch response, a summary) before middy's own early timeout; what is left is done
 * by the next run or the redelivery.
 */
export const DEADLINE_MARGIN_MS = 10_000;

/** Aborts with middy's signal or when the remaining time falls to the margin. */
export function deadlineSignal(
  context: Partial<Pick<Context, 'getRemainingTimeInMillis'>>,
  middyOpts: unknown,
): AbortSignal | undefined {
  const signals: AbortSignal[] = [];
  const middySignal = (middyOpts as { signal?: AbortSignal } | undefined)?.signal;
  if (middySignal) signals.push(middySignal);
  const remaining = context.getRemainingTimeInMillis?.();
  if (remaining !== undefined) {
    signals.push(AbortSignal.timeout(Math.max(0, remaining - DEADLINE_MARGIN_MS)));
  }
  return signals.length > 0 ? AbortSignal.any(signals) : undefined;
}
