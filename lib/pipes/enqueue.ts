/**
 * The scheduled half of the watchdog for any number of services: it only enqueues the services,
 * a batch per message sized to one rate-limit window, for the consumer (./fanout.ts). It is
 * bundled into the scheduled function, so it imports nothing of the check.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import type { WatchdogConfig } from './watchdog-config';

export const watchdogBatchMessage = z.lazy(() =>
  z.strictObject({
    /** One scheduled run: a service it finished is skipped when its message comes again. */
    runId: z.string().check(z.minLength(1)),
    organizationId: z.string().check(z.minLength(1)),
    serviceIds: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
    /** Epoch ms of the scheduled run (how far behind the queue is). */
    scheduledAt: z.number(),
  }),
);
export type WatchdogBatchMessage = z.infer<typeof watchdogBatchMessage>;

/** Consecutive batches of at most `size` services (pure). */
export function planBatches(serviceIds: readonly string[], size: number): string[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`services per message must be a positive integer, got ${size}`);
  const out: string[][] = [];
  for (let i = 0; i < serviceIds.length; i += size) out.push(serviceIds.slice(i, i + size));
  return out;
}

/** Where batches go (SQS in Lambda: lib/pipes/sqs-queue.ts). Rejects if any body was not taken. */
export interface BatchQueue {
  send(bodies: readonly string[]): Promise<void>;
}

interface EnqueueResult {
  runId: string;
  messages: number;
  services: number;
}

/** The scheduled half: no API request at all, only the queue. */
export async function enqueueServices(
  config: Pick<WatchdogConfig, 'organizationId' | 'serviceIds'>,
  options: { queue: BatchQueue; servicesPerMessage: number; now: () => number; runId?: string },
): Promise<EnqueueResult> {
  const runId = options.runId ?? randomUUID();
  const scheduledAt = options.now();
  const batches = planBatches(config.serviceIds, options.servicesPerMessage);
  await options.queue.send(
    batches.map((serviceIds) => {
      const message: WatchdogBatchMessage = {
        runId,
        organizationId: config.organizationId,
        serviceIds,
        scheduledAt,
      };
      return JSON.stringify(message);
    }),
  );
  return { runId, messages: batches.length, services: config.serviceIds.length };
}
