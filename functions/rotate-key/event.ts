import type { MiddlewareObj } from '@middy/core';
import * as z from 'zod';
import { ValidationError } from '../../lib/errors';
import { formatIssues } from '../../lib/format-issues';
import { ROTATION_STEPS } from '../../lib/keys';

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
      const parsed = rotationEvent.safeParse(request.event);
      if (!parsed.success) {
        const issues = formatIssues(parsed.error.issues);
        throw new ValidationError(`Invalid rotation event: ${issues.join('; ')}`, {
          source: 'event',
          issues,
        });
      }
      request.event = parsed.data;
    },
  };
}
