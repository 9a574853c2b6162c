import * as z from 'zod/mini';
import type { CredentialProvider } from '../credentials/types';
import {
  alert,
  createAlertBody,
  dashboard,
  dashboardWrite,
  updateAlertBody,
  wireSource,
  type Alert,
  type CreateAlertBody,
  type Dashboard,
  type DashboardWrite,
  type ObservabilityTokenSecret,
  type UpdateAlertBody,
} from '../schemas';
import { bearerAuth } from './auth';
import { httpCoreFor, type ApiRequest, type CallOptions, type HttpClientOptions } from './http';
import { itemByItem } from './item-list';
import { observabilityObjects, type ObjectsAccess } from './observability-objects';
import { PAGE_LIMIT, toPage } from './pages';
import { observabilityPaths as P, withPage } from './paths';
import { OBSERVABILITY_RATE_LIMIT } from './rate-limiter';
import { validateBody } from './validate-body';

/** `baseUrl` is {stack_url} (paths add `/api/v2/...`); the rate limit defaults to 100
 * requests / 60 s per token. */
export interface ObservabilityClientOptions extends HttpClientOptions {
  readonly credentials: CredentialProvider<ObservabilityTokenSecret>;
}

/** Sends the current service's source word (`saved_search`, never the spec's `search`). */
function onTheWire<T extends { source?: string }>(body: T): T {
  return body.source === undefined ? body : { ...body, source: wireSource(body.source) };
}

export type ObservabilityClient = ReturnType<typeof createObservabilityClient>;

/**
 * Client for the observability API (`/api/v2`, Bearer token): the open-source deployment serves
 * everything here (spec 4.6, 4.7, and the objects of observability-objects.ts).
 */
export function createObservabilityClient(options: ObservabilityClientOptions) {
  const core = httpCoreFor(options, {
    auth: bearerAuth(options.credentials),
    envelope: 'observability',
    rateLimit: OBSERVABILITY_RATE_LIMIT,
  });
  const call = <T>(req: ApiRequest<T>, opts: CallOptions = {}) => core.request({ ...req, ...opts });
  const access: ObjectsAccess = {
    collection: (resource) => Promise.resolve(P.collection(resource)),
    item: (resource, id) => Promise.resolve(P.item(resource, id)),
    validatePath: () => Promise.resolve(P.dashboardValidate()),
    call,
    // `/api/v2` lists are `{ data, meta: { total, limit, offset } }` and take limit and offset.
    async page(path, item, offset, opts) {
      const envelope = (await call(
        {
          method: 'GET',
          path: withPage(path, PAGE_LIMIT, offset),
          schema: z.array(item),
          keepEnvelope: true,
        },
        opts,
      )) as unknown as { data: z.output<typeof item>[]; meta?: unknown };
      return toPage(envelope.data, envelope.meta);
    },
  };

  return {
    close: () => core.close(),
    ...observabilityObjects(access),

    async listDashboards(opts?: CallOptions): Promise<Dashboard[]> {
      return call(
        { method: 'GET', path: P.collection('dashboards'), schema: itemByItem(z.array(dashboard)) },
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
  };
}
