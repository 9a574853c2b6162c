/**
 * The `Pipe State Changed` detail, what lib/watch's pipe and service notices carry on the bus:
 * apart from the other events' schemas (schemas.ts), which bring the alert schemas with them.
 */
import * as z from 'zod/mini';
import { isoDateTime } from '../schemas/common';

export const pipeStateChangedDetail = z.looseObject({
  organizationId: z.string(),
  serviceId: z.string(),
  pipeId: z.string(),
  pipeName: z.string(),
  from: z.string(),
  to: z.string(),
  severity: z.string(),
  kind: z.string(),
  at: isoDateTime,
  message: z.optional(z.string()),
});
export type PipeStateChangedDetail = z.infer<typeof pipeStateChangedDetail>;
