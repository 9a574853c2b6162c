import * as z from 'zod/mini';
import { safeInteger } from './builders';
import { isoDateTime, lenient, lenientNullable } from './common';

export const ALERT_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d'] as const;
export const alertInterval = z.lazy(() => z.enum(ALERT_INTERVALS));

/** The current service's eight values (the spec snapshot knew only above and below). */
export const THRESHOLD_TYPES = [
  'above',
  'below',
  'above_exclusive',
  'below_or_equal',
  'equal',
  'not_equal',
  'between',
  'not_between',
] as const;
export const thresholdType = z.lazy(() => z.enum(THRESHOLD_TYPES));
export type ThresholdType = z.infer<typeof thresholdType>;
/** Range types: they need `thresholdMax` >= `threshold`. */
export const RANGE_THRESHOLD_TYPES: readonly ThresholdType[] = ['between', 'not_between'];

/**
 * `saved_search` is the service's word; the spec's `search` is accepted from files and events
 * and sent as `saved_search` (see wireSource()).
 */
export const alertSource = z.lazy(() => z.enum(['tile', 'saved_search', 'search']));

/** The word the current service expects for a source. */
export function wireSource(source: string): string {
  return source === 'search' ? 'saved_search' : source;
}

/** Minutes per interval: a schedule offset must stay below its interval. */
export const INTERVAL_MINUTES: Record<(typeof ALERT_INTERVALS)[number], number> = {
  '1m': 1,
  '5m': 5,
  '15m': 15,
  '30m': 30,
  '1h': 60,
  '6h': 360,
  '12h': 720,
  '1d': 1440,
};

/**
 * `{ type: "webhook", webhookId }` or `{ type: "email", emailRecipients }`; a read may carry more
 * (`webhookService`, `slackChannelId`, `severity`) and other types pass as strings.
 */
export const alertChannel = z.lazy(() =>
  z.looseObject({
    type: z.string().check(z.minLength(1)),
    webhookId: z.optional(z.string()),
    emailRecipients: z.optional(z.array(z.string())),
  }),
);

/**
 * zod's email pattern (`z.email()`'s default): the recipients are tested with it alone, without
 * the email schema class a one-off `z.email().safeParse` would bundle.
 */
const EMAIL =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/** A channel in a write: the two documented types carry what they need. */
const alertChannelWrite = z.lazy(() =>
  alertChannel.check(
    z.superRefine((channel, ctx) => {
      if (channel.type === 'webhook' && !channel.webhookId)
        ctx.addIssue({
          code: 'custom',
          path: ['webhookId'],
          message: 'required for a webhook channel',
        });
      if (channel.type === 'email') {
        const recipients = channel.emailRecipients ?? [];
        if (recipients.length === 0)
          ctx.addIssue({
            code: 'custom',
            path: ['emailRecipients'],
            message: 'at least one recipient for an email channel',
          });
        recipients.forEach((address, i) => {
          if (!EMAIL.test(address))
            ctx.addIssue({
              code: 'custom',
              path: ['emailRecipients', i],
              message: 'not an email address',
            });
        });
      }
    }),
  ),
);

/**
 * Read-only state: ALERT, OK, INSUFFICIENT_DATA, DISABLED, and PENDING (the condition holds, fewer
 * than `numConsecutiveWindows` windows in a row so far; in the management API since August 2026).
 * Other strings stay valid.
 */
export const alertState = z.lazy(() => z.string());

const link = z.lazy(() => z.optional(z.nullable(z.string())));

/**
 * An alert as read back. Tolerant: unknown fields pass, `name`/`message` may be null,
 * `silenced` is an object today (`{ by, at, until }`) and was a boolean in the spec, and the
 * links arrive as `dashboardId`/`tileId`/`savedSearchId`/`teamId` (current) or
 * `dashboard`/`tile`/`savedSearch`/`team` (spec): read them through alertLinks().
 */
export const alert = z.lazy(() =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    name: z.optional(z.nullable(z.string())),
    message: z.optional(z.nullable(z.string())),
    threshold: z.optional(z.nullable(z.number())),
    thresholdMax: z.optional(z.nullable(z.number())),
    interval: z.optional(z.nullable(z.string())),
    thresholdType: z.optional(z.nullable(z.string())),
    source: z.optional(z.nullable(z.string())),
    state: z.optional(z.nullable(alertState)),
    channel: z.optional(z.nullable(alertChannel)),
    /** `/api/v2` only (1-10; `channel` mirrors the first). */
    channels: lenient(z.array(alertChannel)),
    note: lenientNullable(z.string()),
    numConsecutiveWindows: lenientNullable(z.number().check(safeInteger())),
    scheduleOffsetMinutes: lenientNullable(z.number().check(safeInteger())),
    scheduleStartAt: lenientNullable(z.string()),
    team: link,
    teamId: link,
    tile: link,
    tileId: link,
    dashboard: link,
    dashboardId: link,
    savedSearch: link,
    savedSearchId: link,
    groupBy: z.optional(z.unknown()),
    silenced: z.optional(z.unknown()),
    createdAt: z.optional(z.nullable(z.string())),
    updatedAt: z.optional(z.nullable(z.string())),
  }),
);
export type Alert = z.infer<typeof alert>;

export interface AlertLinks {
  dashboardId: string | undefined;
  tileId: string | undefined;
  savedSearchId: string | undefined;
  teamId: string | undefined;
}

const present = (...values: (string | null | undefined)[]) =>
  values.find((v): v is string => typeof v === 'string' && v !== '');

/** An alert's links under either spelling (current names first). */
export function alertLinks(a: Alert): AlertLinks {
  return {
    dashboardId: present(a.dashboardId, a.dashboard),
    tileId: present(a.tileId, a.tile),
    savedSearchId: present(a.savedSearchId, a.savedSearch),
    teamId: present(a.teamId, a.team),
  };
}

const alertBodyFields = {
  dashboardId: z.optional(z.string().check(z.minLength(1))),
  tileId: z.optional(z.string().check(z.minLength(1))),
  savedSearchId: z.optional(z.string().check(z.minLength(1))),
  threshold: z.number(),
  thresholdMax: z.optional(z.number()),
  interval: alertInterval,
  source: alertSource,
  thresholdType: thresholdType,
  channel: alertChannelWrite,
  name: z.string().check(z.minLength(1)),
  message: z.optional(z.string()),
  note: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
  groupBy: z.optional(z.string().check(z.minLength(1))),
  /** Fire only after this many windows in a row (state PENDING until then). */
  numConsecutiveWindows: z.optional(z.nullable(z.number().check(safeInteger(), z.gte(1)))),
  scheduleOffsetMinutes: z.optional(
    z.nullable(z.number().check(safeInteger(), z.gte(0), z.lte(1439))),
  ),
  scheduleStartAt: z.optional(z.nullable(isoDateTime)),
};

type ScheduleFields = {
  interval?: (typeof ALERT_INTERVALS)[number];
  scheduleOffsetMinutes?: number | null;
  scheduleStartAt?: string | null;
};

/** The provider's rules: an offset below the interval, and an offset or a start time, not both. */
function checkSchedule(body: ScheduleFields, ctx: z.core.$RefinementCtx): void {
  const offset = body.scheduleOffsetMinutes ?? 0;
  if (body.interval && offset > 0 && offset >= INTERVAL_MINUTES[body.interval])
    ctx.addIssue({
      code: 'custom',
      path: ['scheduleOffsetMinutes'],
      message: `must be less than the interval (${body.interval})`,
    });
  if (offset > 0 && body.scheduleStartAt)
    ctx.addIssue({
      code: 'custom',
      path: ['scheduleStartAt'],
      message: 'set either scheduleOffsetMinutes or scheduleStartAt, not both',
    });
}

/**
 * Create-alert body (spec 2.4, current service): a tile source needs dashboardId and tileId, a
 * saved search its savedSearchId, a range threshold its thresholdMax. The service also wants
 * the whole body on PUT (an update replaces rather than merges).
 */
export const createAlertBody = z.lazy(() =>
  z.object(alertBodyFields).check(
    z.superRefine((body, ctx) => {
      const need = (path: keyof typeof body, why: string) =>
        ctx.addIssue({ code: 'custom', path: [path], message: `required when ${why}` });
      if (body.source === 'tile') {
        if (!body.dashboardId) need('dashboardId', 'source is tile');
        if (!body.tileId) need('tileId', 'source is tile');
      } else if (!body.savedSearchId) {
        need('savedSearchId', `source is ${body.source}`);
      }
      if (RANGE_THRESHOLD_TYPES.includes(body.thresholdType)) {
        if (body.thresholdMax === undefined)
          need('thresholdMax', `thresholdType is ${body.thresholdType}`);
        else if (body.thresholdMax < body.threshold)
          ctx.addIssue({
            code: 'custom',
            path: ['thresholdMax'],
            message: `must be >= threshold (${body.threshold})`,
          });
      }
      checkSchedule(body, ctx);
    }),
  ),
);
export type CreateAlertBody = z.input<typeof createAlertBody>;

/**
 * Every field of `shape` optional: the shape of `z.partial(z.object(shape))`, without zod's
 * partial helper (it brings zod's tuple handling along, 0.8 KiB of a bundle).
 */
function allOptional<S extends Record<string, z.ZodMiniType>>(shape: S) {
  const optional = {} as { [K in keyof S]: z.ZodMiniOptional<S[K]> };
  for (const key of Object.keys(shape) as (keyof S)[]) optional[key] = z.optional(shape[key]);
  return optional;
}

/**
 * Update-alert body as the spec snapshot (4.6) allows: no field required. The current service
 * replaces the alert with what a PUT carries, so cloudops always sends the full body.
 */
export const updateAlertBody = z.lazy(() =>
  z.object(allOptional(alertBodyFields)).check(z.superRefine(checkSchedule)),
);
export type UpdateAlertBody = z.input<typeof updateAlertBody>;
