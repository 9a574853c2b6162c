/**
 * The dashboard file format (DESIGN.md "Dashboard files"): one dashboard per YAML/JSON file,
 * in the shape of spec 2.5 with tile ids left out, plus an optional identity `key` and
 * optional `alerts` on a tile. Objects are strict so a typo'd field is an error, not ignored.
 */
import * as z from 'zod';
import {
  AGG_FNS,
  ALERT_INTERVALS,
  DASHBOARD_LIMITS,
  SERIES_TYPES,
  thresholdType,
} from '../schemas';
import { MARKER_TAG_COUNT } from './ownership';

const COLS = DASHBOARD_LIMITS.gridColumns;

/** A key is a path-like identity: letters, digits, `.`, `_`, `-`, `/`. */
export const dashboardKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, 'letters, digits, ".", "_", "-" and "/" only');

export const fileSeries = z.strictObject({
  type: z.enum(SERIES_TYPES),
  dataSource: z.string().min(1).optional(),
  aggFn: z.enum(AGG_FNS).optional(),
  where: z.string().optional(),
  groupBy: z.array(z.string().min(1)).optional(),
});
export type FileSeries = z.infer<typeof fileSeries>;

export const fileAlertChannel = z
  .strictObject({
    type: z.string().min(1),
    webhookId: z.string().min(1).optional(),
  })
  .refine((channel) => channel.type !== 'webhook' || channel.webhookId !== undefined, {
    message: 'webhookId is required when type is webhook',
    path: ['webhookId'],
  });

/** An alert declared on a tile; the alert provisioner creates it once the tile has an id. */
export const fileAlert = z.strictObject({
  name: z.string().min(1),
  threshold: z.number(),
  thresholdType,
  interval: z.enum(ALERT_INTERVALS),
  channel: fileAlertChannel,
  message: z.string().optional(),
});
export type FileAlert = z.infer<typeof fileAlert>;

export const fileTile = z.strictObject({
  /** Stable identity of the tile: renaming `name` then keeps the tile id and its alerts. */
  key: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ".", "_" and "-" only')
    .optional(),
  name: z.string().min(1),
  x: z
    .int()
    .min(0)
    .max(COLS - 1),
  y: z.int().min(0),
  w: z.int().min(1).max(COLS),
  h: z.int().min(1),
  asRatio: z.boolean().optional(),
  series: z.array(fileSeries).optional(),
  alerts: z.array(fileAlert).optional(),
});
export type FileTile = z.infer<typeof fileTile>;

/** User tags: the marker tags cloudops adds count against the service's 50-tag limit. */
export const USER_TAGS_MAX = DASHBOARD_LIMITS.tagsMax - MARKER_TAG_COUNT;

export const dashboardFile = z.strictObject({
  /** Lets editors find the JSON Schema; ignored otherwise. */
  $schema: z.string().optional(),
  key: dashboardKey.optional(),
  name: z.string().min(1).max(DASHBOARD_LIMITS.nameMax),
  tags: z.array(z.string().min(1).max(DASHBOARD_LIMITS.tagLengthMax)).max(USER_TAGS_MAX).optional(),
  tiles: z.array(fileTile).max(DASHBOARD_LIMITS.tilesMax).optional(),
});
export type DashboardFile = z.infer<typeof dashboardFile>;

/** JSON Schema of a dashboard file, for editors (`cloudops dashboards schema`). */
export function dashboardFileJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(dashboardFile, { target: 'draft-2020-12', unrepresentable: 'any' }),
    title: 'cloudops dashboard file',
    description:
      'One dashboard per file. Tiles are matched to the service by name, so renaming a tile ' +
      'replaces it (and deletes the alerts watching it). x + w must be <= 24; tiles must not overlap.',
  };
}
