import { createAlertBody, updateAlertBody } from '../profiles/spec-schemas';
import type { Alert } from '../../lib/schemas';
import { badRequest, notFound, validateBody } from '../errors';
import { objectId } from '../ids';
import type { AlertRow, Store } from '../store';

type AlertInput = ReturnType<typeof createAlertBody.parse>;

export function alertView(row: AlertRow): Alert {
  const { serviceId: _serviceId, ...view } = row;
  return structuredClone(view);
}

export function listAlerts(store: Store, serviceId: string): AlertRow[] {
  return store.state.alerts.filter((a) => a.serviceId === serviceId);
}

export function findAlert(store: Store, serviceId: string, id: string): AlertRow {
  const row = store.state.alerts.find((a) => a.id === id && a.serviceId === serviceId);
  if (!row) throw notFound('Alert not found');
  return row;
}

/** References must exist in the same service: the tile's dashboard, the tile, the webhook. */
function checkReferences(store: Store, serviceId: string, input: AlertInput): void {
  if (input.source === 'tile') {
    const dashboard = store.state.dashboards.find(
      (d) => d.id === input.dashboardId && d.serviceId === serviceId,
    );
    if (!dashboard)
      throw badRequest(
        `Body validation failed: dashboardId: dashboard ${input.dashboardId} not found`,
      );
    if (!dashboard.tiles.some((t) => t.id === input.tileId)) {
      throw badRequest(
        `Body validation failed: tileId: tile ${input.tileId} not found on dashboard ${dashboard.id}`,
      );
    }
  } else {
    // The sandbox has no saved searches, so a search source can never be satisfied.
    throw badRequest(
      `Body validation failed: savedSearchId: saved search ${input.savedSearchId ?? '(none)'} not found`,
    );
  }
  if (input.channel.type !== 'webhook') {
    throw badRequest(`Body validation failed: channel.type: only "webhook" is supported`);
  }
  const webhookId = input.channel.webhookId;
  if (
    !webhookId ||
    !store.state.webhooks.some((w) => w.id === webhookId && w.serviceId === serviceId)
  ) {
    throw badRequest(
      `Body validation failed: channel.webhookId: webhook ${webhookId ?? '(none)'} not found`,
    );
  }
}

function fields(input: AlertInput) {
  return {
    name: input.name,
    message: input.message ?? null,
    threshold: input.threshold,
    interval: input.interval,
    thresholdType: input.thresholdType,
    source: input.source,
    channel: { type: input.channel.type, webhookId: input.channel.webhookId },
    tileId: input.source === 'tile' ? (input.tileId ?? null) : null,
    dashboard: input.source === 'tile' ? (input.dashboardId ?? null) : null,
    savedSearch: input.source === 'search' ? (input.savedSearchId ?? null) : null,
  };
}

export function createAlert(store: Store, serviceId: string, body: unknown, now: number): AlertRow {
  const input = validateBody(createAlertBody, body);
  checkReferences(store, serviceId, input);
  const team = store.service(serviceId)?.team;
  const at = new Date(now).toISOString();
  const row: AlertRow = {
    id: objectId(now),
    ...fields(input),
    state: 'OK',
    team,
    groupBy: null,
    silenced: false,
    createdAt: at,
    updatedAt: at,
    serviceId,
  };
  store.state.alerts.push(row);
  store.changed();
  return row;
}

/** PUT: fields given replace the stored ones; the merged alert is validated like a create. */
export function updateAlert(
  store: Store,
  serviceId: string,
  id: string,
  body: unknown,
  now: number,
): AlertRow {
  const row = findAlert(store, serviceId, id);
  const patch = validateBody(updateAlertBody, body);
  const current = {
    name: row.name,
    message: row.message ?? undefined,
    threshold: row.threshold,
    interval: row.interval,
    thresholdType: row.thresholdType,
    source: row.source,
    channel: row.channel,
    dashboardId: row.dashboard ?? undefined,
    tileId: row.tileId ?? undefined,
    savedSearchId: row.savedSearch ?? undefined,
  };
  const input = validateBody(createAlertBody, { ...current, ...stripUndefined(patch) });
  checkReferences(store, serviceId, input);
  Object.assign(row, fields(input), { updatedAt: new Date(now).toISOString() });
  store.changed();
  return row;
}

export function deleteAlert(store: Store, serviceId: string, id: string): void {
  const row = findAlert(store, serviceId, id);
  store.state.alerts = store.state.alerts.filter((a) => a !== row);
  store.changed();
}

function stripUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
