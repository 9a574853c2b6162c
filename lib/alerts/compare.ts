/** Alert fields as cloudops declares them, read back from the service, and compared. */
import { alertLinks, wireSource, type Alert, type CreateAlertBody } from '../schemas';
import type { TileAlertDeclaration } from './desired';
import { stripMarker } from './marker';

/** The declarable fields, normalized so "absent", null and "" compare equal. */
export interface AlertFields {
  name: string;
  message: string;
  threshold: number | undefined;
  thresholdMax: number | undefined;
  interval: string | undefined;
  thresholdType: string | undefined;
  /** `tile` or `saved_search` (the spec's `search` compares as `saved_search`). */
  source: string | undefined;
  channelType: string | undefined;
  webhookId: string | undefined;
  dashboardId: string | undefined;
  tileId: string | undefined;
  savedSearchId: string | undefined;
}

const opt = <T>(v: T | null | undefined): T | undefined => (v === null || v === '' ? undefined : v);

export function fieldsOfBody(body: CreateAlertBody): AlertFields {
  const source = wireSource(body.source);
  return {
    name: body.name,
    message: stripMarker(body.message),
    threshold: body.threshold,
    thresholdMax: opt(body.thresholdMax),
    interval: body.interval,
    thresholdType: body.thresholdType,
    source,
    channelType: body.channel.type,
    webhookId: opt(body.channel.webhookId),
    dashboardId: source === 'tile' ? opt(body.dashboardId) : undefined,
    tileId: source === 'tile' ? opt(body.tileId) : undefined,
    savedSearchId: source === 'saved_search' ? opt(body.savedSearchId) : undefined,
  };
}

/** What the service holds, whichever names its links use (current or spec). */
export function fieldsOfAlert(alert: Alert): AlertFields {
  const source = opt(alert.source) === undefined ? undefined : wireSource(alert.source!);
  const links = alertLinks(alert);
  return {
    name: alert.name ?? '',
    message: stripMarker(alert.message),
    threshold: opt(alert.threshold),
    thresholdMax: opt(alert.thresholdMax),
    interval: opt(alert.interval),
    thresholdType: opt(alert.thresholdType),
    source,
    channelType: opt(alert.channel?.type),
    webhookId: opt(alert.channel?.webhookId),
    dashboardId: source === 'tile' ? links.dashboardId : undefined,
    tileId: source === 'tile' ? links.tileId : undefined,
    savedSearchId: source === 'saved_search' ? links.savedSearchId : undefined,
  };
}

/** Names of the fields that differ (empty: nothing to write). */
export function diffFields(a: AlertFields, b: AlertFields): string[] {
  return (Object.keys(a) as (keyof AlertFields)[]).filter((k) => a[k] !== b[k]);
}

/** Rebuilds a full create/update body from an alert read back (to copy a newer duplicate's content). */
export function bodyOfAlert(alert: Alert): CreateAlertBody | undefined {
  const f = fieldsOfAlert(alert);
  if (
    f.threshold === undefined ||
    f.interval === undefined ||
    f.thresholdType === undefined ||
    (f.source !== 'tile' && f.source !== 'saved_search') ||
    f.channelType === undefined
  ) {
    return undefined;
  }
  return {
    name: f.name,
    message: f.message,
    threshold: f.threshold,
    ...(f.thresholdMax !== undefined ? { thresholdMax: f.thresholdMax } : {}),
    interval: f.interval as CreateAlertBody['interval'],
    thresholdType: f.thresholdType as CreateAlertBody['thresholdType'],
    source: f.source,
    channel: { type: f.channelType, ...(f.webhookId ? { webhookId: f.webhookId } : {}) },
    ...(f.dashboardId ? { dashboardId: f.dashboardId } : {}),
    ...(f.tileId ? { tileId: f.tileId } : {}),
    ...(f.savedSearchId ? { savedSearchId: f.savedSearchId } : {}),
  };
}

/**
 * The fields a person declares on a tile alert, as a plan shows them old -> new (links left
 * out: a tile alert is matched by its tile, so they are equal). The marker is not shown.
 */
export function alertShape(a: TileAlertDeclaration | Alert): Record<string, unknown> {
  const channel = a.channel ?? undefined;
  return {
    name: a.name ?? '',
    threshold: a.threshold,
    thresholdMax: a.thresholdMax ?? undefined,
    thresholdType: a.thresholdType,
    interval: a.interval,
    channel: channel
      ? { type: channel.type, ...(channel.webhookId ? { webhookId: channel.webhookId } : {}) }
      : undefined,
    message: stripMarker(a.message ?? undefined),
  };
}
