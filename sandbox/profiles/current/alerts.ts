/** Alerts of the current service: its names, eight threshold types, silenced objects, full PUTs. */
import { badRequest, notFound } from '../../errors';
import { objectId } from '../../ids';
import type { Store } from '../../store';
import { alertableTile } from './dashboards';
import { alertBodySchema } from './schemas';
import type { AlertBody } from './schemas';
import { alertRows, deleteAlertRows, type Channel, type CurrentAlertRow } from './rows';
import { failure, parseOr400 } from './validate';

/**
 * `/api/v2` shows `channels`; the management API does not. Both show `numConsecutiveWindows`
 * (the management API since August 2026).
 */
type AlertSurface = 'api' | 'management';

export function alertView(row: CurrentAlertRow, surface: AlertSurface): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    message: row.message,
    note: row.note ?? null,
    threshold: row.threshold,
    thresholdMax: row.thresholdMax ?? undefined,
    interval: row.interval,
    scheduleOffsetMinutes: row.scheduleOffsetMinutes ?? undefined,
    scheduleStartAt: row.scheduleStartAt ?? undefined,
    thresholdType: row.thresholdType,
    source: row.source,
    state: row.state,
    channel: row.channels[0],
    teamId: row.teamId,
    tileId: row.tileId,
    dashboardId: row.dashboardId,
    savedSearchId: row.savedSearchId,
    groupBy: row.groupBy ?? undefined,
    silenced: row.silenced ?? undefined,
    executionErrors: row.executionErrors,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  if (surface === 'api') view.channels = row.channels;
  view.numConsecutiveWindows = row.numConsecutiveWindows ?? null;
  return structuredClone(
    Object.fromEntries(Object.entries(view).filter(([, v]) => v !== undefined)),
  );
}

export function listAlerts(store: Store, serviceId: string): CurrentAlertRow[] {
  return alertRows(store.state).filter((a) => a.serviceId === serviceId);
}

export function findAlert(store: Store, serviceId: string, id: string): CurrentAlertRow {
  const row = listAlerts(store, serviceId).find((a) => a.id === id);
  if (!row) throw notFound('Alert not found');
  return row;
}

function checkReferences(store: Store, serviceId: string, body: AlertBody, channels: Channel[]) {
  if ((body.source ?? 'saved_search') === 'tile') {
    alertableTile(store, serviceId, body.dashboardId!, body.tileId!);
  } else {
    const known = (store.state.savedSearches ?? []).some(
      (s) => s.id === body.savedSearchId && s.serviceId === serviceId,
    );
    if (!known)
      throw badRequest(
        `Body validation failed: savedSearchId: saved search ${body.savedSearchId} not found`,
      );
  }
  channels.forEach((channel, i) => {
    if (channel.type !== 'webhook') return;
    const known = store.state.webhooks.some(
      (w) => w.id === channel.webhookId && w.serviceId === serviceId,
    );
    if (!known)
      throw badRequest(
        `Body validation failed: channels.${i}.webhookId: webhook ${channel.webhookId} not found`,
      );
  });
}

/** What a create or a (replacing) update sets. */
function fieldsOf(body: AlertBody, channels: Channel[]) {
  const tile = (body.source ?? 'saved_search') === 'tile';
  return {
    name: body.name ?? null,
    message: body.message ?? null,
    note: body.note ?? null,
    threshold: body.threshold,
    thresholdMax: body.thresholdMax ?? undefined,
    interval: body.interval,
    thresholdType: body.thresholdType,
    source: tile ? ('tile' as const) : ('saved_search' as const),
    channels,
    tileId: tile ? body.tileId! : undefined,
    dashboardId: tile ? body.dashboardId! : undefined,
    savedSearchId: tile ? undefined : body.savedSearchId!,
    groupBy: body.groupBy ?? undefined,
    scheduleOffsetMinutes: body.scheduleOffsetMinutes ?? undefined,
    scheduleStartAt: body.scheduleStartAt ?? undefined,
    numConsecutiveWindows: body.numConsecutiveWindows ?? undefined,
  };
}

function parse(store: Store, serviceId: string, body: unknown, surface: AlertSurface) {
  const input = parseOr400('Body', alertBodySchema(surface), body) as AlertBody;
  // `channel` mirrors the first of `channels`; a body with only `channel` has one channel.
  const channels = input.channels?.length ? input.channels : [input.channel!];
  checkReferences(store, serviceId, input, channels);
  return fieldsOf(input, channels);
}

export function createAlert(
  store: Store,
  serviceId: string,
  body: unknown,
  now: number,
  surface: AlertSurface,
): CurrentAlertRow {
  const fields = parse(store, serviceId, body, surface);
  const at = new Date(now).toISOString();
  const row: CurrentAlertRow = {
    id: objectId(now),
    serviceId,
    ...fields,
    state: 'OK',
    teamId: store.service(serviceId)?.team ?? '',
    createdAt: at,
    updatedAt: at,
  };
  alertRows(store.state).push(row);
  store.changed();
  return row;
}

/**
 * The management PUT keeps an omitted `groupBy` and `thresholdMax` and refuses null for both
 * (provider notes, August 2026); `scheduleStartAt: null` also resets the offset to 0.
 */
function managementPut(row: CurrentAlertRow, body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const given = body as Record<string, unknown>;
  const refused = (['groupBy', 'thresholdMax'] as const).filter((k) => given[k] === null);
  if (refused.length > 0)
    throw failure(
      'Body',
      refused.map((path) => ({ path, message: 'null is not allowed (omit it to keep the value)' })),
    );
  return {
    groupBy: row.groupBy ?? undefined,
    thresholdMax: row.thresholdMax ?? undefined,
    ...given,
    ...(given.scheduleStartAt === null ? { scheduleOffsetMinutes: 0 } : {}),
  };
}

/**
 * PUT replaces: the body must be a whole alert; fields it leaves out are gone afterwards (on the
 * management API but for groupBy and thresholdMax, see managementPut).
 */
export function updateAlert(
  store: Store,
  serviceId: string,
  id: string,
  body: unknown,
  now: number,
  surface: AlertSurface,
): CurrentAlertRow {
  const row = findAlert(store, serviceId, id);
  const sent = surface === 'management' ? managementPut(row, body) : body;
  const fields = parse(store, serviceId, sent, surface);
  for (const key of Object.keys(fields) as (keyof typeof fields)[]) delete row[key];
  Object.assign(row, fields, { updatedAt: new Date(now).toISOString() });
  for (const [key, value] of Object.entries(row))
    if (value === undefined) delete (row as unknown as Record<string, unknown>)[key];
  store.changed();
  return row;
}

export function deleteAlert(store: Store, serviceId: string, id: string): void {
  const row = findAlert(store, serviceId, id);
  deleteAlertRows(store.state, (a) => a === row);
  store.changed();
}
