/**
 * The observability objects both APIs serve with the same bodies and answers: dashboard dry-run
 * validation, webhooks, saved searches and sources (the management API since August 2026; the
 * `/api/v2` routes as the open-source router serves them; alerts are in observability-alerts.ts).
 * Each client supplies an ObjectsAccess (its paths, its call, how it reads one page); the
 * operations are written once.
 */
import * as z from 'zod/mini';
import { registerSecret } from '../redact';
import {
  dashboardValidateBody,
  dashboardValidationAnswer,
  dataSource,
  savedSearch,
  savedSearchWrite,
  sourceWrite,
  webhook,
  webhookWrite,
  type DashboardValidateBody,
  type DashboardValidation,
  type DataSource,
  type SavedSearch,
  type SavedSearchWrite,
  type SourceWrite,
  type Webhook,
  type WebhookWrite,
} from '../schemas';
import { asWebhookInUse, UnexpectedResponseError } from './errors';
import type { CallOptions } from './http';
import { listAll, type ObjectAccess } from './observability-alerts';
import type { ApiPath } from './paths';
import { validateBody } from './validate-body';

/** What the shared operations need from one API: its access, and where the dry run is. */
export interface ObjectsAccess extends ObjectAccess {
  validatePath(): Promise<ApiPath>;
}

type WriteMethod = 'POST' | 'PUT';

/** A create or update: the body checked against `write` before it is sent, the answer read by `read`. */
function writer<W extends z.ZodMiniType, R>(
  a: ObjectAccess,
  write: W,
  read: z.ZodMiniType<R>,
  beforeSend: (valid: z.output<W>) => void = () => undefined,
) {
  return (method: WriteMethod, path: ApiPath, body: z.input<W>, opts?: CallOptions): Promise<R> => {
    const valid = validateBody(write, body, method, path);
    beforeSend(valid);
    return a.call({ method, path, body: valid, schema: read }, opts);
  };
}

/** The service answered with no verdict, or does not serve the route: it cannot judge. */
function unavailable(error: unknown, path: ApiPath): DashboardValidation | undefined {
  // A path the gateway does not serve answers a non-JSON 404 ("Cannot POST"): an older service
  // without the dry run. A JSON 404 (a missing service) is a real failure and stays one.
  if (error instanceof UnexpectedResponseError && error.status === 404)
    return { outcome: 'unavailable', reason: `the service does not serve POST ${path.route}` };
  return undefined;
}

/** The payload of either envelope (`result`, `data`), or the body itself when it has neither. */
function payloadOf(envelope: Record<string, unknown>): unknown {
  if ('result' in envelope) return envelope.result;
  if ('data' in envelope) return envelope.data;
  return envelope;
}

function dashboardOperations(a: ObjectsAccess) {
  return {
    /**
     * The dry run: what the service would say of this create body, nothing saved. An answer
     * without `valid` is `unavailable` (warn and go on), never `invalid`; any other failure
     * (400, 500, transport) throws.
     */
    async validateDashboard(
      body: DashboardValidateBody,
      opts?: CallOptions,
    ): Promise<DashboardValidation> {
      const path = await a.validatePath();
      const valid = validateBody(dashboardValidateBody, body, 'POST', path);
      try {
        const envelope = await a.call(
          // A dry run changes nothing: safe to repeat after a lost answer.
          {
            method: 'POST',
            path,
            body: valid,
            schema: z.optional(z.unknown()),
            keepEnvelope: true,
            idempotency: 'idempotent',
          },
          opts,
        );
        return dashboardValidationAnswer.parse(payloadOf(envelope as Record<string, unknown>));
      } catch (error) {
        const none = unavailable(error, path);
        if (none) return none;
        throw error;
      }
    },
  };
}

/**
 * headers, query parameters and the URL carry credentials (a Slack URL is one): registered so any
 * text that echoes them (an error body) is masked.
 */
function registerWriteOnly(body: z.output<typeof webhookWrite>): void {
  registerSecret(body.url);
  for (const value of Object.values(body.headers ?? {})) registerSecret(value);
  for (const value of Object.values(body.queryParams ?? {})) registerSecret(value);
}

function webhookOperations(a: ObjectAccess) {
  const write = writer(a, webhookWrite, webhook, registerWriteOnly);
  return {
    listWebhooks: (opts?: CallOptions): Promise<Webhook[]> => listAll(a, 'webhooks', webhook, opts),
    /** Not idempotent: a repeated POST makes a second webhook (or a 400 for a duplicate name). */
    createWebhook: async (body: WebhookWrite, opts?: CallOptions): Promise<Webhook> =>
      write('POST', await a.collection('webhooks'), body, opts),
    /**
     * Omitted `headers`/`queryParams` are kept (`{}` clears them) unless `url` or `service`
     * changes; omitted `description`/`body` are cleared. There is no GET by id.
     */
    updateWebhook: async (id: string, body: WebhookWrite, opts?: CallOptions): Promise<Webhook> =>
      write('PUT', await a.item('webhooks', id), body, opts),
    /** A 409 (an alert still uses it) becomes a WebhookInUseError. */
    async deleteWebhook(id: string, opts?: CallOptions): Promise<void> {
      const path = await a.item('webhooks', id);
      try {
        await a.call({ method: 'DELETE', path, schema: null }, opts);
      } catch (error) {
        throw asWebhookInUse(error, id);
      }
    },
  };
}

function savedSearchOperations(a: ObjectAccess) {
  const write = writer(a, savedSearchWrite, savedSearch);
  return {
    listSavedSearches: (opts?: CallOptions): Promise<SavedSearch[]> =>
      listAll(a, 'saved-searches', savedSearch, opts),
    getSavedSearch: async (id: string, opts?: CallOptions): Promise<SavedSearch> =>
      a.call(
        { method: 'GET', path: await a.item('saved-searches', id), schema: savedSearch },
        opts,
      ),
    createSavedSearch: async (body: SavedSearchWrite, opts?: CallOptions): Promise<SavedSearch> =>
      write('POST', await a.collection('saved-searches'), body, opts),
    /** A full replace: an omitted field is reset. */
    updateSavedSearch: async (
      id: string,
      body: SavedSearchWrite,
      opts?: CallOptions,
    ): Promise<SavedSearch> => write('PUT', await a.item('saved-searches', id), body, opts),
    /** Also deletes every alert on the search (the service does; say so before calling). */
    deleteSavedSearch: async (id: string, opts?: CallOptions): Promise<void> =>
      a.call({ method: 'DELETE', path: await a.item('saved-searches', id), schema: null }, opts),
  };
}

/** Not paginated: the answer is the whole list. */
function listSourcesOf(a: ObjectAccess) {
  return async (opts?: CallOptions): Promise<DataSource[]> =>
    a.call(
      { method: 'GET', path: await a.collection('sources'), schema: z.array(dataSource) },
      opts,
    );
}

function sourceOperations(a: ObjectAccess) {
  const write = writer(a, sourceWrite, dataSource);
  return {
    listSources: listSourcesOf(a),
    getSource: async (id: string, opts?: CallOptions): Promise<DataSource> =>
      a.call({ method: 'GET', path: await a.item('sources', id), schema: dataSource }, opts),
    createSource: async (body: SourceWrite, opts?: CallOptions): Promise<DataSource> =>
      write('POST', await a.collection('sources'), body, opts),
    /** Replaces the whole source (an `id` in the body is ignored). */
    updateSource: async (id: string, body: SourceWrite, opts?: CallOptions): Promise<DataSource> =>
      write('PUT', await a.item('sources', id), body, opts),
    deleteSource: async (id: string, opts?: CallOptions): Promise<void> =>
      a.call({ method: 'DELETE', path: await a.item('sources', id), schema: null }, opts),
  };
}

/** The operations both APIs share, bound to one API's access. */
export function observabilityObjects(a: ObjectsAccess) {
  return {
    ...dashboardOperations(a),
    ...webhookOperations(a),
    ...savedSearchOperations(a),
    ...sourceOperations(a),
  };
}
export type ObservabilityObjects = ReturnType<typeof observabilityObjects>;

/**
 * The objects a dashboard sync writes or reads, and nothing more: webhooks, saved searches and
 * the list of sources. No dry run (the deployed sync plans offline), so its bundle leaves out
 * the validation schemas and the source writes.
 */
export function syncedObjects(a: ObjectAccess) {
  return {
    ...webhookOperations(a),
    ...savedSearchOperations(a),
    listSources: listSourcesOf(a),
  };
}
