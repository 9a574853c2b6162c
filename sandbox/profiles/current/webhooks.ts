/**
 * Webhooks of the current service (August 2026: CRUD on the management API; `/api/v2` as the
 * open-source router serves it). `headers` and `queryParams` are stored and never shown.
 */
import * as z from 'zod';
import { badRequest, conflict, notFound } from '../../errors';
import { objectId } from '../../ids';
import type { Store, WebhookRow } from '../../store';
import { alertRows } from './rows';
import { parseOr400 } from './validate';

export const WEBHOOK_SERVICES = ['slack', 'incidentio', 'generic'] as const;
const SLACK_REFUSES = ['headers', 'queryParams', 'body'] as const;
const DUPLICATE = 'A webhook with this service and name already exists';

// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\r\n\t\x00-\x1F\x7F]/;
const noControl = (what: string) =>
  z.string().refine((v) => !CONTROL.test(v), `${what} cannot contain control characters`);
const headerName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[!#$%&'*+\-.0-9A-Z^_`a-z|~]+$/, 'Invalid header name');

const webhookBody = z
  .object({
    name: z.string().trim().min(1).max(1024),
    service: z.enum(WEBHOOK_SERVICES),
    url: z.url().max(2048),
    description: z.string().max(2048).optional(),
    body: z
      .string()
      .max(16 * 1024)
      .optional(),
    headers: z.record(headerName, noControl('Header values').max(4096)).optional(),
    queryParams: z
      .record(
        noControl('Query parameter names').min(1).max(1024),
        noControl('Query parameter values').max(4096),
      )
      .optional(),
  })
  .superRefine((value, ctx) => {
    if (value.service !== 'slack') return;
    for (const field of SLACK_REFUSES)
      if (value[field] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} is not supported for the slack webhook service`,
        });
  });
type WebhookBody = z.output<typeof webhookBody>;

/** What both APIs show: never `headers` or `queryParams`. */
export function webhookView(row: WebhookRow): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({
      id: row.id,
      name: row.name,
      service: row.service ?? 'generic',
      url: row.url,
      description: row.description,
      body: row.body,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    }).filter(([, v]) => v !== undefined),
  );
}

export function listWebhooks(store: Store, serviceId: string): WebhookRow[] {
  return store.state.webhooks.filter((w) => w.serviceId === serviceId);
}

function findWebhook(store: Store, serviceId: string, id: string): WebhookRow {
  const row = listWebhooks(store, serviceId).find((w) => w.id === id);
  if (!row) throw notFound('Webhook not found');
  return row;
}

/** `(service, name)` is unique within the team (a 400, as the service answers a duplicate key). */
function checkUnique(store: Store, serviceId: string, input: WebhookBody, self?: WebhookRow): void {
  const clash = listWebhooks(store, serviceId).some(
    (w) => w !== self && w.name === input.name && (w.service ?? 'generic') === input.service,
  );
  if (clash) throw badRequest(DUPLICATE);
}

export function createWebhook(store: Store, serviceId: string, body: unknown, now: number) {
  const input = parseOr400('Body', webhookBody, body);
  checkUnique(store, serviceId, input);
  const at = new Date(now).toISOString();
  const row: WebhookRow = { id: objectId(now), serviceId, ...input, createdAt: at, updatedAt: at };
  store.state.webhooks.push(row);
  store.changed();
  return row;
}

/**
 * PUT: name, service and url are set; omitted description and body are cleared; an omitted
 * headers or queryParams is kept (`{}` clears it) unless url or service changed, which clears it.
 */
export function updateWebhook(
  store: Store,
  serviceId: string,
  id: string,
  body: unknown,
  now: number,
) {
  const row = findWebhook(store, serviceId, id);
  const input = parseOr400('Body', webhookBody, body);
  checkUnique(store, serviceId, input, row);
  const moved = input.url !== row.url || input.service !== (row.service ?? 'generic');
  const writeOnly = (
    given: Record<string, string> | undefined,
    stored: Record<string, string> | undefined,
  ) => {
    if (given === undefined) return moved ? undefined : stored;
    return Object.keys(given).length === 0 ? undefined : given;
  };
  const next: WebhookRow = {
    id: row.id,
    serviceId,
    name: input.name,
    service: input.service,
    url: input.url,
    description: input.description,
    body: input.body,
    headers: writeOnly(input.headers, row.headers),
    queryParams: writeOnly(input.queryParams, row.queryParams),
    createdAt: row.createdAt,
    updatedAt: new Date(now).toISOString(),
  };
  for (const key of Object.keys(row) as (keyof WebhookRow)[]) delete row[key];
  Object.assign(row, Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined)));
  store.changed();
  return row;
}

/**
 * The management API refuses to delete a webhook an alert uses (409); the open-source router
 * deletes it and leaves the alert's channel dangling (`refuseInUse` false).
 */
export function deleteWebhook(
  store: Store,
  serviceId: string,
  id: string,
  refuseInUse: boolean,
): void {
  const row = findWebhook(store, serviceId, id);
  const users = alertRows(store.state).filter(
    (a) =>
      a.serviceId === serviceId &&
      a.channels.some((c) => c.type === 'webhook' && c.webhookId === id),
  );
  if (refuseInUse && users.length > 0)
    throw conflict(
      `webhook ${id} is used by ${users.length} alert(s): ${users.map((a) => a.id).join(', ')}`,
    );
  store.state.webhooks = store.state.webhooks.filter((w) => w !== row);
  store.changed();
}
