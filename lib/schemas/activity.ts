import * as z from 'zod/mini';
import { isoDateTime, lenient } from './common';

/** The activity types that concern keys; the list holds many others, which are read as they are. */
export const KEY_ACTIVITY_TYPES = ['key_create', 'key_delete', 'openapi_key_update'] as const;

/**
 * One entry of `GET /v1/organizations/{id}/activities`. Only `type` is required: a field we do
 * not use, or one of another shape, never fails the list (tolerant reader).
 */
export const activity = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    id: lenient(z.string()),
    type: z.string(),
    createdAt: lenient(isoDateTime),
    /** created, deleted, name-changed, role-changed, state-changed, date-changed, ... */
    keyUpdateType: lenient(z.string()),
    /** Which key id it holds (record UUID or key ID) is not documented: match both. */
    targetKeyId: lenient(z.string()),
    /** user | support | system | api; any other string reads as itself. */
    actorType: lenient(z.string()),
    actorId: lenient(z.string()),
    actorDetails: lenient(z.string()),
    actorIpAddress: lenient(z.string()),
    userAgent: lenient(z.string()),
  }),
);
export type Activity = z.infer<typeof activity>;
