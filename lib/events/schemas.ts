/**
 * The three EventBridge event kinds of DESIGN.md "Events" (source `cloudops`; the CLI reads the
 * same envelopes). Detail schemas are strict enough to reject a record that would be applied
 * wrongly, loose enough (looseObject) that an added field does not break an older consumer.
 */
import * as z from 'zod';
import { ALERT_INTERVALS, alertChannel, createAlertBody, thresholdType } from '../schemas/alert';

export const EVENT_SOURCE = 'cloudops';
export const DASHBOARD_SYNCED = 'Dashboard Synced';
export const ALERT_PROVISION_REQUESTED = 'Alert Provision Requested';
export const PIPE_STATE_CHANGED = 'Pipe State Changed';
/** A dashboard drift notice (the sync in report mode, through the watchdog's notifiers). */
export const DASHBOARDS_DRIFTED = 'Dashboards Drifted';
/** The dashboard sync stopped at its deadline and asks for its next run (it alone consumes it). */
export const DASHBOARD_SYNC_CONTINUED = 'Dashboard Sync Continued';

const isoTime = z.iso.datetime({ offset: true });

/** An alert declared on a dashboard tile (the file's alert plus the tile it sits on). */
export const declaredAlert = z.looseObject({
  tileName: z.string().min(1),
  name: z.string().min(1),
  threshold: z.number(),
  /** Upper bound of a `between` / `not_between` threshold. */
  thresholdMax: z.number().optional(),
  thresholdType,
  interval: z.enum(ALERT_INTERVALS),
  channel: alertChannel,
  message: z.string().optional(),
  numConsecutiveWindows: z.number().int().min(1).optional(),
  scheduleOffsetMinutes: z.number().int().min(0).optional(),
  scheduleStartAt: z.string().optional(),
});
export type DeclaredAlertDetail = z.infer<typeof declaredAlert>;

export const dashboardSyncedDetail = z.looseObject({
  /** Stable identity of the dashboard in the repo (owner of its alerts). */
  dashboardKey: z.string().min(1),
  dashboardId: z.string().min(1),
  name: z.string(),
  sourceFile: z.string(),
  syncedAt: isoTime,
  tiles: z.array(z.looseObject({ name: z.string().min(1), id: z.string().min(1) })),
  alerts: z.array(declaredAlert),
});
export type DashboardSyncedDetail = z.infer<typeof dashboardSyncedDetail>;

export const alertProvisionRequestedDetail = z.looseObject({
  /** The requester's unique id for this alert: the idempotency key. */
  key: z.string().min(1),
  /** The create-alert body of spec 2.4. */
  alert: createAlertBody,
});

export const pipeStateChangedDetail = z.looseObject({
  organizationId: z.string(),
  serviceId: z.string(),
  pipeId: z.string(),
  pipeName: z.string(),
  from: z.string(),
  to: z.string(),
  severity: z.string(),
  kind: z.string(),
  at: isoTime,
  message: z.string().optional(),
});
export type PipeStateChangedDetail = z.infer<typeof pipeStateChangedDetail>;

function envelope<T extends string, D extends z.ZodType>(detailType: T, detail: D) {
  return z.looseObject({
    /** `cloudops` for events cloudops emits; any source may request an alert. */
    source: z.string().min(1),
    'detail-type': z.literal(detailType),
    time: isoTime,
    /** EventBridge adds an id; kept when present (used in error messages). */
    id: z.string().optional(),
    detail,
  });
}

export const dashboardSyncedEvent = envelope(DASHBOARD_SYNCED, dashboardSyncedDetail);
export type DashboardSyncedEvent = z.infer<typeof dashboardSyncedEvent>;
export const alertProvisionRequestedEvent = envelope(
  ALERT_PROVISION_REQUESTED,
  alertProvisionRequestedDetail,
);
export type AlertProvisionRequestedEvent = z.infer<typeof alertProvisionRequestedEvent>;
export const pipeStateChangedEvent = envelope(PIPE_STATE_CHANGED, pipeStateChangedDetail);

/** Any of the three, discriminated by `detail-type`. */
export const cloudopsEvent = z.discriminatedUnion('detail-type', [
  dashboardSyncedEvent,
  alertProvisionRequestedEvent,
  pipeStateChangedEvent,
]);

/** The events the alert provisioner consumes. */
export const alertEvent = z.discriminatedUnion('detail-type', [
  dashboardSyncedEvent,
  alertProvisionRequestedEvent,
]);
export type AlertEvent = z.infer<typeof alertEvent>;
