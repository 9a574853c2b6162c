/**
 * The request bodies of the spec's snapshot, frozen here. The client's schemas in lib/ move with
 * the live service (tolerant readers, new enum values); the `spec` profile must not move with them,
 * or it would stop being the snapshot and start agreeing with whatever the client sends.
 */
import * as z from 'zod';

const isoDateTime = z.iso.datetime({ offset: true });
const DASHBOARD_LIMITS = { nameMax: 1024, tilesMax: 500, tagsMax: 50, tagLengthMax: 32 } as const;

const series = z.looseObject({
  type: z.string(),
  dataSource: z.string().optional(),
  aggFn: z.string().optional(),
  where: z.string().optional(),
  groupBy: z.array(z.string()).optional(),
});

const tileWrite = z.looseObject({
  id: z.string().min(1).optional(),
  name: z.string(),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  asRatio: z.boolean().optional(),
  series: z.array(series).optional(),
});
export type TileWrite = z.output<typeof tileWrite>;

/** Create/update dashboard body (spec 4.7: no field is marked required). */
export const dashboardWrite = z.object({
  name: z.string().min(1).max(DASHBOARD_LIMITS.nameMax).optional(),
  tiles: z.array(tileWrite).max(DASHBOARD_LIMITS.tilesMax).optional(),
  tags: z
    .array(z.string().max(DASHBOARD_LIMITS.tagLengthMax))
    .max(DASHBOARD_LIMITS.tagsMax)
    .optional(),
});

const alertBodyFields = {
  dashboardId: z.string().min(1).optional(),
  tileId: z.string().min(1).optional(),
  savedSearchId: z.string().min(1).optional(),
  threshold: z.number(),
  interval: z.enum(['1m', '5m', '15m', '30m', '1h', '6h', '12h', '1d']),
  source: z.enum(['tile', 'search']),
  thresholdType: z.enum(['above', 'below']),
  channel: z.looseObject({ type: z.string().min(1), webhookId: z.string().optional() }),
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

/** Update-alert body (spec 4.6): no field is marked required. */
export const updateAlertBody = z.object(alertBodyFields).partial();

const keyRoles = z
  .array(z.enum(['admin', 'developer', 'query_endpoints']))
  .min(1, 'a key carries at least 1 role');
const ipAccessEntry = z.looseObject({
  source: z.string().min(1),
  description: z.string().optional(),
});

export const createKeyRequest = z.object({
  name: z.string().min(1),
  expireAt: isoDateTime.nullable().optional(),
  state: z.enum(['enabled', 'disabled']).optional(),
  hashData: z
    .object({
      keyIdHash: z.string().min(1),
      keyIdSuffix: z.string().min(1),
      keySecretHash: z.string().min(1),
    })
    .optional(),
  roles: keyRoles,
  ipAccessList: z.array(ipAccessEntry).optional(),
});

export const updateKeyRequest = z.object({
  name: z.string().min(1).optional(),
  expireAt: isoDateTime.nullable().optional(),
  state: z.enum(['enabled', 'disabled']).optional(),
  roles: keyRoles.optional(),
  ipAccessList: z.array(ipAccessEntry).optional(),
});
