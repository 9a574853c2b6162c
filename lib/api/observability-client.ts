import * as z from 'zod';
import type { CredentialProvider } from '../credentials/types';
import {
  alert,
  createAlertBody,
  dashboard,
  dataSource,
  webhook,
  dashboardWrite,
  lenient,
  updateAlertBody,
  wireSource,
  type Alert,
  type CreateAlertBody,
  type Dashboard,
  type DashboardWrite,
  type DataSource,
  type ObservabilityTokenSecret,
  type Webhook,
  type UpdateAlertBody,
} from '../schemas';
import { bearerAuth } from './auth';
import {
  httpCoreFor,
  type ApiRequest,
  type CallOptions,
  type HttpClientOptions,
  type HttpCore,
} from './http';
import { observabilityPaths as P, type ApiPath } from './paths';
import { OBSERVABILITY_RATE_LIMIT } from './rate-limiter';
import { validateBody } from './validate-body';

/** `baseUrl` is {stack_url} (paths add `/api/v2/...`); the rate limit defaults to 100
 * requests / 60 s per token. */
export interface ObservabilityClientOptions extends HttpClientOptions {
  readonly credentials: CredentialProvider<ObservabilityTokenSecret>;
}

/** The service's maximum page size (API-FACTS: default and maximum limit 1000). */
const PAGE_LIMIT = 1000;
/** A bound against a server whose `total` never comes within reach. */
const MAX_PAGES = 1000;

/** Sends the current service's source word (`saved_search`, never the spec's `search`). */
function onTheWire<T extends { source?: string }>(body: T): T {
  return body.source === undefined ? body : { ...body, source: wireSource(body.source) };
}

/** `meta` of a paged `/api/v2` list; read leniently (it only steers paging). */
const listMeta = lenient(
  z.looseObject({
    total: lenient(z.number()),
    limit: lenient(z.number()),
    offset: lenient(z.number()),
  }),
);

/**
 * Reads every page of a `/api/v2` list (`{ data, meta: { total, limit, offset } }`, `limit` and
 * `offset` query parameters). An answer without `meta` is the whole list (the spec's unpaged
 * form); paging stops at `meta.total`, at a short or empty page, or after MAX_PAGES, so a
 * server that ignores `offset` cannot loop forever.
 */
export async function readAllPages<T>(
  core: Pick<HttpCore, 'request'>,
  path: ApiPath,
  item: z.ZodType<T>,
  opts: CallOptions = {},
): Promise<T[]> {
  const out: T[] = [];
  let offset = 0;
  for (let pages = 0; pages < MAX_PAGES; pages += 1) {
    const page = (await core.request({
      method: 'GET',
      path: { ...path, path: `${path.path}?limit=${PAGE_LIMIT}&offset=${offset}` },
      schema: z.array(item),
      keepEnvelope: true,
      ...opts,
    })) as unknown as { data: T[]; meta?: unknown };
    const meta = listMeta.parse(page.meta);
    out.push(...page.data);
    offset += page.data.length;
    if (!meta || page.data.length === 0 || page.data.length < (meta.limit ?? PAGE_LIMIT)) break;
    if (meta.total !== undefined && offset >= meta.total) break;
  }
  return out;
}

export type ObservabilityClient = ReturnType<typeof createObservabilityClient>;

/**
 * Client for the observability API (`/api/v2`, Bearer token). The managed deployment uses
 * it for updates (spec 4.6, 4.7); the open-source deployment serves everything here.
 */
export function createObservabilityClient(options: ObservabilityClientOptions) {
  const core = httpCoreFor(options, {
    auth: bearerAuth(options.credentials),
    envelope: 'observability',
    rateLimit: OBSERVABILITY_RATE_LIMIT,
  });
  const call = <T>(req: ApiRequest<T>, opts: CallOptions = {}) => core.request({ ...req, ...opts });

  return {
    close: () => core.close(),

    async listDashboards(opts?: CallOptions): Promise<Dashboard[]> {
      return call(
        { method: 'GET', path: P.collection('dashboards'), schema: z.array(dashboard) },
        opts,
      );
    },
    /** POST is not idempotent: retried only when the server surely did not process it. */
    async createDashboard(body: DashboardWrite, opts?: CallOptions): Promise<Dashboard> {
      const path = P.collection('dashboards');
      const valid = validateBody(dashboardWrite, body, 'POST', path);
      return call({ method: 'POST', path, body: valid, schema: dashboard }, opts);
    },
    async getDashboard(id: string, opts?: CallOptions): Promise<Dashboard> {
      return call({ method: 'GET', path: P.item('dashboards', id), schema: dashboard }, opts);
    },
    /** Spec 4.7. Replaces the whole tile list: send existing tile ids or their alerts die. */
    async updateDashboard(
      id: string,
      body: DashboardWrite,
      opts?: CallOptions,
    ): Promise<Dashboard> {
      const path = P.item('dashboards', id);
      const valid = validateBody(dashboardWrite, body, 'PUT', path);
      return call({ method: 'PUT', path, body: valid, schema: dashboard }, opts);
    },
    async deleteDashboard(id: string, opts?: CallOptions): Promise<void> {
      return call({ method: 'DELETE', path: P.item('dashboards', id), schema: null }, opts);
    },

    /**
     * Every alert, page by page: `/api/v2` lists are paginated (`{ data, meta: { total, limit,
     * offset } }`, at most 1000 a page); an answer without `meta` is the whole list (spec).
     */
    async listAlerts(opts?: CallOptions): Promise<Alert[]> {
      return readAllPages(core, P.collection('alerts'), alert, opts);
    },
    async createAlert(body: CreateAlertBody, opts?: CallOptions): Promise<Alert> {
      const path = P.collection('alerts');
      const valid = validateBody(createAlertBody, body, 'POST', path);
      return call({ method: 'POST', path, body: onTheWire(valid), schema: alert }, opts);
    },
    async getAlert(id: string, opts?: CallOptions): Promise<Alert> {
      return call({ method: 'GET', path: P.item('alerts', id), schema: alert }, opts);
    },
    /**
     * Spec 4.6. The current service replaces the alert with the body (no merge): send the full
     * alert (a CreateAlertBody), as lib/alerts does; a partial body is what the spec allowed.
     */
    async updateAlert(id: string, body: UpdateAlertBody, opts?: CallOptions): Promise<Alert> {
      const path = P.item('alerts', id);
      const valid = validateBody(updateAlertBody, body, 'PUT', path);
      return call({ method: 'PUT', path, body: onTheWire(valid), schema: alert }, opts);
    },
    async deleteAlert(id: string, opts?: CallOptions): Promise<void> {
      return call({ method: 'DELETE', path: P.item('alerts', id), schema: null }, opts);
    },

    /** The team's sources (not paginated): what a series' `sourceId` names. */
    async listSources(opts?: CallOptions): Promise<DataSource[]> {
      return call({ method: 'GET', path: P.list('sources'), schema: z.array(dataSource) }, opts);
    },
    /** Every webhook, page by page: what an alert channel's `webhookId` names. */
    async listWebhooks(opts?: CallOptions): Promise<Webhook[]> {
      return readAllPages(core, P.list('webhooks'), webhook, opts);
    },
  };
}
