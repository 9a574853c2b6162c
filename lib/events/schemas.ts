/**
 * The three EventBridge event kinds of DESIGN.md "Events" (source `cloudops`; the CLI reads the
 * same envelopes). Detail schemas are strict enough to reject a record that would be applied
 * wrongly, loose enough (looseObject) that an added field does not break an older consumer.
 */
import * as z from 'zod/mini';
import { safeInteger } from '../schemas/builders';
import { isoDateTime } from '../schemas/common';
import { ALERT_INTERVALS, alertChannel, createAlertBody, thresholdType } from '../schemas/alert';
import { ALERT_PROVISION_REQUESTED, DASHBOARD_SYNCED, PIPE_STATE_CHANGED } from './names';
import { pipeStateChangedDetail } from './pipe-state';

// The names with the schemas, as their importers have always read them.
export * from './names';
export { pipeStateChangedDetail, type PipeStateChangedDetail } from './pipe-state';

/** An alert declared on a dashboard tile (the file's alert plus the tile it sits on). */
export const declaredAlert = z.lazy(() =>
  z.looseObject({
    tileName: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    threshold: z.number(),
    /** Upper bound of a `between` / `not_between` threshold. */
    thresholdMax: z.optional(z.number()),
    thresholdType,
    interval: z.enum(ALERT_INTERVALS),
    channel: alertChannel,
    message: z.optional(z.string()),
    numConsecutiveWindows: z.optional(z.number().check(safeInteger(), z.minimum(1))),
    scheduleOffsetMinutes: z.optional(z.number().check(safeInteger(), z.minimum(0))),
    scheduleStartAt: z.optional(z.string()),
  }),
);
export type DeclaredAlertDetail = z.infer<typeof declaredAlert>;

export const dashboardSyncedDetail = z.lazy(() =>
  z.looseObject({
    /** Stable identity of the dashboard in the repo (owner of its alerts). */
    dashboardKey: z.string().check(z.minLength(1)),
    dashboardId: z.string().check(z.minLength(1)),
    name: z.string(),
    sourceFile: z.string(),
    syncedAt: isoDateTime,
    tiles: z.array(
      z.looseObject({
        name: z.string().check(z.minLength(1)),
        id: z.string().check(z.minLength(1)),
      }),
    ),
    alerts: z.array(declaredAlert),
  }),
);
export type DashboardSyncedDetail = z.infer<typeof dashboardSyncedDetail>;

export const alertProvisionRequestedDetail = z.lazy(() =>
  z.looseObject({
    /** The requester's unique id for this alert: the idempotency key. */
    key: z.string().check(z.minLength(1)),
    /** The create-alert body of spec 2.4. */
    alert: createAlertBody,
  }),
);

function envelope<T extends string, D extends z.ZodMiniType>(detailType: T, detail: D) {
  return z.looseObject({
    /** `cloudops` for events cloudops emits; any source may request an alert. */
    source: z.string().check(z.minLength(1)),
    'detail-type': z.literal(detailType),
    time: isoDateTime,
    /** EventBridge adds an id; kept when present (used in error messages). */
    id: z.optional(z.string()),
    detail,
  });
}

export const dashboardSyncedEvent = z.lazy(() => envelope(DASHBOARD_SYNCED, dashboardSyncedDetail));
export type DashboardSyncedEvent = z.infer<typeof dashboardSyncedEvent>;
export const alertProvisionRequestedEvent = z.lazy(() =>
  envelope(ALERT_PROVISION_REQUESTED, alertProvisionRequestedDetail),
);
export type AlertProvisionRequestedEvent = z.infer<typeof alertProvisionRequestedEvent>;
export const pipeStateChangedEvent = /* @__PURE__ */ z.lazy(() =>
  envelope(PIPE_STATE_CHANGED, pipeStateChangedDetail),
);

/**
 * `z.discriminatedUnion('detail-type', options)` without zod's union classes (about 1.1 KiB of
 * a bundle): a record is parsed by the one envelope its `detail-type` names, with the issues
 * zod's own raises (so the messages users read are the same); `options` keys are the literal
 * detail-types of the envelopes, in the order the message lists them.
 */
function byDetailType<O extends Record<string, z.ZodMiniType>>(options: O) {
  const check = z.check<unknown>((payload) => {
    const input = payload.value;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      payload.issues.push({ code: 'invalid_type', expected: 'object', input });
      return;
    }
    const detailType: unknown = (input as Record<string, unknown>)['detail-type'];
    const option = typeof detailType === 'string' && Object.hasOwn(options, detailType);
    if (!option) {
      payload.issues.push({
        code: 'invalid_union',
        errors: [],
        note: 'No matching discriminator',
        discriminator: 'detail-type',
        options: Object.keys(options),
        input,
        path: ['detail-type'],
      });
      return;
    }
    const parsed = options[detailType].safeParse(input);
    if (parsed.success) payload.value = parsed.data;
    // finished issues: their messages are already set
    else payload.issues.push(...(parsed.error.issues as z.core.$ZodRawIssue[]));
  });
  return z.custom<z.output<O[keyof O]>>().check(check);
}

/** Any of the three, by `detail-type`. */
export const cloudopsEvent = /* @__PURE__ */ z.lazy(() =>
  byDetailType({
    [DASHBOARD_SYNCED]: dashboardSyncedEvent,
    [ALERT_PROVISION_REQUESTED]: alertProvisionRequestedEvent,
    [PIPE_STATE_CHANGED]: pipeStateChangedEvent,
  }),
);

/** The events the alert provisioner consumes. */
export const alertEvent = /* @__PURE__ */ z.lazy(() =>
  byDetailType({
    [DASHBOARD_SYNCED]: dashboardSyncedEvent,
    [ALERT_PROVISION_REQUESTED]: alertProvisionRequestedEvent,
  }),
);
export type AlertEvent = z.infer<typeof alertEvent>;
