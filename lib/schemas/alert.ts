import * as z from 'zod';

export const ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
export const alertInterval = z.enum(ALERT_INTERVALS);
export type AlertInterval = z.infer<typeof alertInterval>;

/** The eight values of the current service (API-FACTS); between/not_between use thresholdMax. */
export const thresholdType = z.enum([
  'above',
  'below',
  'above_exclusive',
  'below_or_equal',
  'equal',
  'not_equal',
  'between',
  'not_between',
]);
export const alertSource = z.enum(['tile', 'search']);

/** Only the webhook form is documented; other types pass as strings. */
export const alertChannel = z.looseObject({
  type: z.string().min(1),
  webhookId: z.string().optional(),
});
export type AlertChannel = z.infer<typeof alertChannel>;

/** Read-only state; known values ALERT, OK, INSUFFICIENT_DATA, DISABLED, PENDING. */
export const alertState = z.string();

export const alert = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  message: z.string().nullable().optional(),
  threshold: z.number().optional(),
  interval: z.string().optional(),
  thresholdType: z.string().optional(),
  source: z.string().optional(),
  state: alertState.optional(),
  channel: alertChannel.optional(),
  team: z.string().optional(),
  tileId: z.string().nullable().optional(),
  dashboard: z.string().nullable().optional(),
  savedSearch: z.string().nullable().optional(),
  groupBy: z.string().nullable().optional(),
  silenced: z.boolean().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type Alert = z.infer<typeof alert>;

const alertBodyFields = {
  dashboardId: z.string().min(1).optional(),
  tileId: z.string().min(1).optional(),
  savedSearchId: z.string().min(1).optional(),
  threshold: z.number(),
  interval: alertInterval,
  source: alertSource,
  thresholdType: thresholdType,
  channel: alertChannel,
  name: z.string().min(1),
  message: z.string().optional(),
};

/** Create-alert body (spec 2.4): a tile source needs dashboardId and tileId. */
export const createAlertBody = z.object(alertBodyFields).superRefine((body, ctx) => {
  if (body.source === 'tile') {
    if (!body.dashboardId)
      ctx.addIssue({
        code: 'custom',
        path: ['dashboardId'],
        message: 'required when source is tile',
      });
    if (!body.tileId)
      ctx.addIssue({ code: 'custom', path: ['tileId'], message: 'required when source is tile' });
  }
});
export type CreateAlertBody = z.input<typeof createAlertBody>;

/** Update-alert body (spec 4.6): no field is marked required. */
export const updateAlertBody = z.object(alertBodyFields).partial();
export type UpdateAlertBody = z.input<typeof updateAlertBody>;
