import type { MiddlewareObj } from '@middy/core';
import * as z from 'zod';
import { parseOrThrow } from '../../lib/format-issues';
import { ROTATION_STEPS } from '../../lib/keys/rotation';

/** The event Secrets Manager sends a rotation function. */
export const rotationEvent = z.object({
  SecretId: z.string().min(1),
  ClientRequestToken: z.string().min(1),
  Step: z.enum(ROTATION_STEPS),
  /** Sent for rotations that use a separate token for cross-account access; not needed here. */
  RotationToken: z.string().optional(),
});
export type RotationEvent = z.infer<typeof rotationEvent>;

/** Middy `before`: a malformed event fails naming each bad field (the event holds no secret). */
export function validateRotationEvent(): MiddlewareObj<unknown> {
  return {
    before: function validateRotationEventBefore(request) {
      request.event = parseOrThrow(rotationEvent, request.event, 'event', 'Invalid rotation event');
    },
  };
}
