/**
 * Executes the webhooks and saved searches of a plan (objects-plan.ts), in the order files
 * refer to each other: webhooks and saved searches are written before the dashboards (an alert
 * names them), their alerts after; deletes go the other way (saved searches, then webhooks).
 * Creates go through createOnce, found again by their marker after an unknown outcome; one
 * write at a time; an interrupt stops between two writes.
 */
import { createOnce } from '../api/create-once';
import { isNotFound } from '../api/errors';
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import { applyTileAlerts, type AlertResult } from '../alerts/tile-apply';
import type { AlertChange } from '../alerts/tile-plan';
import type { AlertWriter } from '../alerts/write';
import { CloudOpsError } from '../errors';
import { redactText } from '../redact';
import type { SavedSearchWrite, WebhookWrite } from '../schemas';
import type { ObjectChange } from './objects-plan';
import { identityTag, ownerOf, ownerTag, withMarker } from './ownership';
import type { DesiredSavedSearch, DesiredWebhook } from './types';
import { describedWithMarker, parseWebhookMarker } from './webhook-marker';
import { writeOnlyDigest } from './value-digest';

export type ObjectStatus =
  'created' | 'updated' | 'deleted' | 'unchanged' | 'failed' | 'not applied';

export interface ObjectResult {
  kind: ObjectChange['kind'];
  action: ObjectChange['action'];
  status: ObjectStatus;
  key?: string;
  id?: string;
  name: string;
  alertResults?: AlertResult[];
  message?: string;
}

type Backend = Pick<
  ObservabilityBackend,
  | 'listWebhooks'
  | 'createWebhook'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'listSavedSearches'
  | 'createSavedSearch'
  | 'updateSavedSearch'
  | 'deleteSavedSearch'
>;

export interface ObjectsContext {
  backend: Backend;
  call: CallOptions;
  owner: string;
  /** The webhooks of the files, by key: their URL and write-only parts (never in the plan). */
  webhooks: ReadonlyMap<string, DesiredWebhook>;
  attempts: number;
  settleMs: number;
}

/** Webhooks, then saved searches: creates and updates (before the dashboards). */
export async function writeObjects(
  changes: readonly ObjectChange[],
  ctx: ObjectsContext,
): Promise<ObjectResult[]> {
  const writes = (kind: ObjectChange['kind']) =>
    changes.filter((c) => c.kind === kind && c.action !== 'delete');
  return each([...writes('webhook'), ...writes('savedSearch')], ctx, writeOne);
}

/** Saved searches (taking their alerts with them), then webhooks: after the dashboards. */
export async function deleteObjects(
  changes: readonly ObjectChange[],
  ctx: ObjectsContext,
): Promise<ObjectResult[]> {
  const deletes = (kind: ObjectChange['kind']) =>
    changes.filter((c) => c.kind === kind && c.action === 'delete');
  return each([...deletes('savedSearch'), ...deletes('webhook')], ctx, deleteOne);
}

/** The alerts of each saved search written (after the dashboards). */
export async function writeSearchAlerts(
  results: ObjectResult[],
  changes: readonly ObjectChange[],
  writer: AlertWriter,
  version: string,
  signal?: AbortSignal,
): Promise<void> {
  for (const change of changes) {
    if (change.kind !== 'savedSearch' || change.alerts.length === 0) continue;
    const result = results.find((r) => r.kind === 'savedSearch' && r.key === change.key);
    if (
      !result?.id ||
      (result.status !== 'created' && result.status !== 'updated' && result.status !== 'unchanged')
    ) {
      if (result) result.alertResults = change.alerts.map((a) => notApplied(a));
      continue;
    }
    const target = { searchKey: change.key!, savedSearchId: result.id, version };
    result.alertResults = await applyTileAlerts(change.alerts, target, writer, signal);
  }
}

const notApplied = (a: AlertChange): AlertResult => ({
  action: a.action,
  name: a.name,
  tile: a.tile,
  ...(a.id ? { id: a.id } : {}),
  status: 'not applied',
});

async function each(
  changes: readonly ObjectChange[],
  ctx: ObjectsContext,
  run: (c: ObjectChange, ctx: ObjectsContext) => Promise<ObjectResult>,
): Promise<ObjectResult[]> {
  const out: ObjectResult[] = [];
  for (const c of changes) {
    const head = { kind: c.kind, action: c.action, key: c.key, id: c.id, name: c.name };
    // The stop point: between two writes.
    if (ctx.call.signal?.aborted) {
      out.push({ ...head, status: c.action === 'unchanged' ? 'unchanged' : 'not applied' });
      continue;
    }
    try {
      out.push(await run(c, ctx));
    } catch (error) {
      if (ctx.call.signal?.aborted) throw error;
      out.push({ ...head, status: 'failed', message: describe(error) });
    }
  }
  return out;
}

async function writeOne(c: ObjectChange, ctx: ObjectsContext): Promise<ObjectResult> {
  const head = { kind: c.kind, action: c.action, key: c.key, name: c.name };
  if (c.action === 'conflict') return { ...head, id: c.id, status: 'failed', message: c.reason };
  if (c.action === 'unchanged') return { ...head, id: c.id, status: 'unchanged' };
  const { backend, call } = ctx;
  if (c.kind === 'webhook') {
    const body = webhookBody(c, ctx);
    const id =
      c.action === 'update'
        ? (await backend.updateWebhook!(c.id!, body, call)).id
        : (await createWebhookOnce(c.key!, body, ctx)).id;
    return { ...head, id, status: c.action === 'update' ? 'updated' : 'created' };
  }
  const body = searchBody(c.search!, ctx.owner);
  const id =
    c.action === 'update'
      ? (await backend.updateSavedSearch!(c.id!, body, call)).id
      : (await createSearchOnce(c.key!, body, ctx)).id;
  return { ...head, id, status: c.action === 'update' ? 'updated' : 'created' };
}

async function deleteOne(c: ObjectChange, ctx: ObjectsContext): Promise<ObjectResult> {
  const head = { kind: c.kind, action: c.action, key: c.key, id: c.id, name: c.name };
  try {
    if (c.kind === 'webhook') await ctx.backend.deleteWebhook!(c.id!, ctx.call);
    else await ctx.backend.deleteSavedSearch!(c.id!, ctx.call);
  } catch (error) {
    // Already gone counts as done: the goal is its absence.
    if (!isNotFound(error)) throw error;
  }
  return { ...head, status: 'deleted' };
}

/**
 * The write body of a webhook: headers and query parameters only when the plan resends them
 * (a PUT that omits them keeps them); the marker records the digests of what the service holds.
 */
function webhookBody(c: ObjectChange, ctx: ObjectsContext): WebhookWrite {
  const want = ctx.webhooks.get(c.key!);
  if (!want)
    throw new CloudOpsError(
      `webhook "${c.name}": its URL and headers were not resolved before the apply; re-plan`,
    );
  const resend = (field: 'headers' | 'queryParams') =>
    want[field] !== undefined &&
    (c.action === 'create' || c.writeOnly?.[field] === 'resent (changed)');
  const digest = (field: 'headers' | 'queryParams') =>
    want[field] !== undefined ? writeOnlyDigest(want.key, want[field]) : c.keptDigests?.[field];
  const headers = digest('headers');
  const queryParams = digest('queryParams');
  return {
    name: want.name,
    service: want.service,
    url: want.url,
    description: describedWithMarker(want.description, {
      key: want.key,
      owner: ctx.owner,
      ...(headers ? { headers } : {}),
      ...(queryParams ? { queryParams } : {}),
      templates: want.templates,
    }),
    ...(want.body !== undefined ? { body: want.body } : {}),
    ...(resend('headers') ? { headers: want.headers } : {}),
    ...(resend('queryParams') ? { queryParams: want.queryParams } : {}),
  };
}

function searchBody(want: DesiredSavedSearch, owner: string): SavedSearchWrite {
  return {
    name: want.name,
    sourceId: want.sourceId!,
    ...(want.select !== undefined ? { select: want.select } : {}),
    ...(want.where !== undefined ? { where: want.where } : {}),
    ...(want.whereLanguage !== undefined ? { whereLanguage: want.whereLanguage } : {}),
    ...(want.orderBy !== undefined ? { orderBy: want.orderBy } : {}),
    tags: withMarker(want.tags, want.key, owner, want.alerts.length > 0),
    ...(want.filters !== undefined ? { filters: want.filters } : {}),
  };
}

function createWebhookOnce(key: string, body: WebhookWrite, ctx: ObjectsContext) {
  return createdOnce(
    ctx,
    () => ctx.backend.createWebhook!(body, ctx.call),
    async () =>
      (await ctx.backend.listWebhooks!(ctx.call)).find((w) => {
        const m = parseWebhookMarker(w.description);
        return m?.key === key && m.owner === ctx.owner;
      }),
  );
}

function createSearchOnce(key: string, body: SavedSearchWrite, ctx: ObjectsContext) {
  const tag = identityTag(key);
  return createdOnce(
    ctx,
    () => ctx.backend.createSavedSearch!(body, ctx.call),
    async () =>
      (await ctx.backend.listSavedSearches!(ctx.call)).find(
        (s) => ownerTag(s.tags ?? []) === tag && ownerOf(s.tags ?? []) === ctx.owner,
      ),
  );
}

async function createdOnce<T>(
  ctx: ObjectsContext,
  create: () => Promise<T>,
  find: () => Promise<T | undefined>,
): Promise<T> {
  const made = await createOnce({
    create,
    find,
    attempts: ctx.attempts,
    settleMs: ctx.settleMs,
    ...(ctx.call.signal ? { signal: ctx.call.signal } : {}),
  });
  return made.value;
}

function describe(error: unknown): string {
  if (error instanceof CloudOpsError) return error.message;
  return redactText(error instanceof Error ? error.message : String(error));
}
