/**
 * The alert operations (spec 4.6), written once for both APIs: the management API's
 * `/observability/alerts` of a service and `/api/v2/alerts` take the same bodies. The full
 * clients spread them beside their dashboards and objects; provision-alerts binds these alone
 * (createAlertClient, management/alerts.ts), so its bundle carries no dashboard, webhook, saved
 * search or source schema.
 */
import * as z from 'zod/mini';
import type { CredentialProvider } from '../credentials/types';
import {
  alert,
  createAlertBody,
  updateAlertBody,
  wireSource,
  type Alert,
  type CreateAlertBody,
  type UpdateAlertBody,
} from '../schemas/alert';
import type { ObservabilityTokenSecret } from '../schemas/secrets';
import { bearerAuth } from './auth';
import { httpCoreFor, type ApiRequest, type CallOptions, type HttpClientOptions } from './http';
import { PAGE_LIMIT, readAllPages, toPage, type Page } from './pages';
import {
  observabilityPaths as P,
  withPage,
  type ApiPath,
  type ObservabilityResource,
} from './paths';
import { OBSERVABILITY_RATE_LIMIT } from './rate-limiter';
import { validateBody } from './validate-body';

/** How one API reaches its observability objects: its paths, its call, how it reads one page. */
export interface ObjectAccess {
  collection(resource: ObservabilityResource): Promise<ApiPath>;
  item(resource: ObservabilityResource, id: string): Promise<ApiPath>;
  call<T>(req: ApiRequest<T>, opts?: CallOptions): Promise<T>;
  /** The page at `offset` of a list described as paginated. */
  page<T>(
    path: ApiPath,
    item: z.ZodMiniType<T>,
    offset: number,
    opts?: CallOptions,
  ): Promise<Page<T>>;
}

/** Every item of a paginated list (alerts, webhooks, saved searches). */
export async function listAll<T extends { id?: unknown }>(
  a: ObjectAccess,
  resource: ObservabilityResource,
  item: z.ZodMiniType<T>,
  opts?: CallOptions,
): Promise<T[]> {
  const path = await a.collection(resource);
  return readAllPages((offset) => a.page(path, item, offset, opts));
}

/** Sends the current service's source word (`saved_search`, never the spec's `search`). */
function onTheWire<T extends { source?: string }>(body: T): T {
  return body.source === undefined ? body : { ...body, source: wireSource(body.source) };
}

/**
 * The alert operations over one API's access. `translateSource`: the body's `source` is sent in
 * the current service's word (the open-source router's habit; the management API sends it as
 * given).
 */
export function alertOperations(a: ObjectAccess, translateSource: boolean) {
  const wire = <T extends { source?: string }>(body: T): T =>
    translateSource ? onTheWire(body) : body;
  return {
    /** Every alert (the list is described as paginated on both APIs). */
    listAlerts: (opts?: CallOptions): Promise<Alert[]> => listAll(a, 'alerts', alert, opts),
    async getAlert(id: string, opts?: CallOptions): Promise<Alert> {
      return a.call({ method: 'GET', path: await a.item('alerts', id), schema: alert }, opts);
    },
    /** POST is not idempotent: retried only when the server surely did not process it. */
    async createAlert(body: CreateAlertBody, opts?: CallOptions): Promise<Alert> {
      const path = await a.collection('alerts');
      const valid = validateBody(createAlertBody, body, 'POST', path);
      return a.call({ method: 'POST', path, body: wire(valid), schema: alert }, opts);
    },
    /**
     * The current service replaces the alert with the body (no merge): send the full alert (a
     * CreateAlertBody), as lib/alerts does; a partial body is what the spec allowed.
     */
    async updateAlert(id: string, body: UpdateAlertBody, opts?: CallOptions): Promise<Alert> {
      const path = await a.item('alerts', id);
      const valid = validateBody(updateAlertBody, body, 'PUT', path);
      return a.call({ method: 'PUT', path, body: wire(valid), schema: alert }, opts);
    },
    async deleteAlert(id: string, opts?: CallOptions): Promise<void> {
      return a.call({ method: 'DELETE', path: await a.item('alerts', id), schema: null }, opts);
    },
  };
}

/** `baseUrl` is {stack_url} (paths add `/api/v2/...`); the rate limit defaults to 100
 * requests / 60 s per token. */
export interface ObservabilityClientOptions extends HttpClientOptions {
  readonly credentials: CredentialProvider<ObservabilityTokenSecret>;
}

/** The open-source API (`/api/v2`, Bearer token): its HTTP core and its access to objects. */
export function openSourceAccess(options: ObservabilityClientOptions) {
  const core = httpCoreFor(options, {
    auth: bearerAuth(options.credentials),
    envelope: 'observability',
    rateLimit: OBSERVABILITY_RATE_LIMIT,
  });
  const call = <T>(req: ApiRequest<T>, opts: CallOptions = {}) => core.request({ ...req, ...opts });
  const access: ObjectAccess = {
    collection: (resource) => Promise.resolve(P.collection(resource)),
    item: (resource, id) => Promise.resolve(P.item(resource, id)),
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
  return { core, call, access };
}

export type AlertClient = ReturnType<typeof createAlertClient>;

/** The open-source API's alerts and nothing else (provision-alerts in open-source mode). */
export function createAlertClient(options: ObservabilityClientOptions) {
  const { core, access } = openSourceAccess(options);
  return { close: () => core.close(), ...alertOperations(access, true) };
}
