/** Alert fields as cloudops declares them, read back from the service, and compared. */
import type { Alert, CreateAlertBody } from '../schemas';
import { stripMarker } from './marker';

/** The declarable fields, normalized so "absent", null and "" compare equal. */
export interface AlertFields {
  name: string;
  message: string;
  threshold: number | undefined;
  interval: string | undefined;
  thresholdType: string | undefined;
  source: string | undefined;
  channelType: string | undefined;
  webhookId: string | undefined;
  dashboardId: string | undefined;
  tileId: string | undefined;
  savedSearchId: string | undefined;
}

const opt = (v: string | null | undefined) => (v === null || v === '' ? undefined : v);

export function fieldsOfBody(body: CreateAlertBody): AlertFields {
  return {
    name: body.name,
    message: stripMarker(body.message),
    threshold: body.threshold,
    interval: body.interval,
    thresholdType: body.thresholdType,
    source: body.source,
    channelType: body.channel.type,
    webhookId: opt(body.channel.webhookId),
    dashboardId: body.source === 'tile' ? opt(body.dashboardId) : undefined,
    tileId: body.source === 'tile' ? opt(body.tileId) : undefined,
    savedSearchId: body.source === 'search' ? opt(body.savedSearchId) : undefined,
  };
}

export function fieldsOfAlert(alert: Alert): AlertFields {
  return {
    name: alert.name ?? '',
    message: stripMarker(alert.message),
    threshold: alert.threshold,
    interval: alert.interval,
    thresholdType: alert.thresholdType,
    source: alert.source,
    channelType: alert.channel?.type,
    webhookId: opt(alert.channel?.webhookId),
    dashboardId: alert.source === 'tile' ? opt(alert.dashboard) : undefined,
    tileId: alert.source === 'tile' ? opt(alert.tileId) : undefined,
    savedSearchId: alert.source === 'search' ? opt(alert.savedSearch) : undefined,
  };
}

/** Names of the fields that differ (empty: nothing to write). */
export function diffFields(a: AlertFields, b: AlertFields): string[] {
  return (Object.keys(a) as (keyof AlertFields)[]).filter((k) => a[k] !== b[k]);
}

/** Rebuilds a create/update body from an alert read back (to copy a newer duplicate's content). */
export function bodyOfAlert(alert: Alert): CreateAlertBody | undefined {
  const f = fieldsOfAlert(alert);
  if (
    f.threshold === undefined ||
    f.interval === undefined ||
    f.thresholdType === undefined ||
    (f.source !== 'tile' && f.source !== 'search') ||
    f.channelType === undefined
  ) {
    return undefined;
  }
  return {
    name: f.name,
    message: f.message,
    threshold: f.threshold,
    interval: f.interval as CreateAlertBody['interval'],
    thresholdType: f.thresholdType as CreateAlertBody['thresholdType'],
    source: f.source,
    channel: { type: f.channelType, ...(f.webhookId ? { webhookId: f.webhookId } : {}) },
    ...(f.dashboardId ? { dashboardId: f.dashboardId } : {}),
    ...(f.tileId ? { tileId: f.tileId } : {}),
    ...(f.savedSearchId ? { savedSearchId: f.savedSearchId } : {}),
  };
}
