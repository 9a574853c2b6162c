import * as z from 'zod/mini';
import type { CredentialProvider } from '../credentials/types';
import { registerSecret } from '../redact';
import {
  activity,
  alert,
  createAlertBody,
  createKeyRequest,
  createKeyResult,
  dashboard,
  dashboardWrite,
  keyRecord,
  pipe,
  pipeSettings,
  pipeStateCommandBody,
  updateAlertBody,
  updateKeyRequest,
  type Activity,
  type Alert,
  type CreateAlertBody,
  type CreateKeyRequest,
  type CreateKeyResult,
  type Dashboard,
  type DashboardWrite,
  type KeyRecord,
  type ManagementAuth,
  type Pipe,
  type PipeSettings,
  type PipeStateCommand,
  type UpdateAlertBody,
  type UpdateKeyRequest,
} from '../schemas';
import { basicAuth } from './auth';
import { metricsBody, readOrganizationMetrics, readServiceMetrics } from '../metrics';
import type { ServiceReading } from '../schemas/metrics';
import { ApiError, asServiceIdle } from './errors';
import { httpCoreFor, type ApiRequest, type CallOptions, type HttpClientOptions } from './http';
import { observabilityObjects, type ObservabilityObjects } from './observability-objects';
import { PAGE_LIMIT, pagedList, toPage } from './pages';
import { managementPaths as P, withPage, type ApiPath } from './paths';
import { MANAGEMENT_RATE_LIMIT } from './rate-limiter';
import { validateBody } from './validate-body';

/** `baseUrl` is {base_url}, e.g. `https://api.example.com` (paths add `/v1/...`); the rate
 * limit defaults to 10 requests / 10 s per credential. */
export interface ManagementClientOptions extends HttpClientOptions {
  readonly credentials: CredentialProvider<ManagementAuth>;
  /** @default the credential's organizationId */
  readonly organizationId?: string;
}

/** What a state command returns is undocumented: the pipe record or nothing. */
const pipeStateResult = z.optional(
  z.pipe(
    z.union([pipe, z.null(), z.strictObject({})]),
    z.transform((value): Pipe | undefined =>
      value && 'id' in value ? (value as Pipe) : undefined,
    ),
  ),
);

/** The 400 texts that mean "already there": `pipe is already running`, `Current state: Stopped`. */
const ALREADY: Partial<Record<PipeStateCommand, RegExp>> = {
  start: /already running|current state:\s*running\b/i,
  stop: /already stopped|current state:\s*(stopped|stopping)\b/i,
};

function alreadyInState(error: unknown, command: PipeStateCommand): boolean {
  const pattern = ALREADY[command];
  return (
    pattern !== undefined &&
    error instanceof ApiError &&
    error.status === 400 &&
    pattern.test(error.apiMessage ?? '')
  );
}

/** What each group of operations shares: the organization, the request call, the logger. */
interface Operations {
  readonly org: () => Promise<string>;
  readonly call: <T>(req: ApiRequest<T>, opts?: CallOptions) => Promise<T>;
  readonly logger: HttpClientOptions['logger'];
}

export type ManagementClient = ReturnType<typeof createManagementClient>;

/** Client for the management API (`/v1`, HTTP Basic with a management key). */
export function createManagementClient(options: ManagementClientOptions) {
  const core = httpCoreFor(options, {
    auth: basicAuth(options.credentials),
    envelope: 'management',
    rateLimit: MANAGEMENT_RATE_LIMIT,
  });
  const ops: Operations = {
    org: async () => options.organizationId ?? (await options.credentials.get()).organizationId,
    call: (req, opts = {}) => core.request({ ...req, ...opts }),
    logger: options.logger,
  };
  return {
    organizationId: ops.org,
    close: () => core.close(),
    ...pipeOperations(ops),
    ...keyOperations(ops),
    ...observabilityOperations(ops),
    ...metricsOperations(ops),
  };
}

/** Pipes (spec 4.1, 4.2 and API-FACTS extras). */
function pipeOperations({ org, call, logger }: Operations) {
  /** Pipe calls on an idle service answer 424: typed, so callers can report "idle" and go on. */
  const pipeCall = async <T>(serviceId: string, req: ApiRequest<T>, opts?: CallOptions) => {
    try {
      return await call(req, opts);
    } catch (error) {
      throw asServiceIdle(error, serviceId);
    }
  };
  return {
    async getPipe(serviceId: string, pipeId: string, opts?: CallOptions): Promise<Pipe> {
      return pipeCall(
        serviceId,
        { method: 'GET', path: P.pipe(await org(), serviceId, pipeId), schema: pipe },
        opts,
      );
    },
    async getPipeSettings(
      serviceId: string,
      pipeId: string,
      opts?: CallOptions,
    ): Promise<PipeSettings> {
      return pipeCall(
        serviceId,
        {
          method: 'GET',
          path: P.pipeSettings(await org(), serviceId, pipeId),
          schema: pipeSettings,
        },
        opts,
      );
    },
    async listPipes(serviceId: string, opts?: CallOptions): Promise<Pipe[]> {
      return pipeCall(
        serviceId,
        { method: 'GET', path: P.pipes(await org(), serviceId), schema: z.array(pipe) },
        opts,
      );
    },
    async deletePipe(serviceId: string, pipeId: string, opts?: CallOptions): Promise<void> {
      return pipeCall(
        serviceId,
        { method: 'DELETE', path: P.pipe(await org(), serviceId, pipeId), schema: null },
        opts,
      );
    },
    /**
     * start | stop | resync; resolves to the pipe record when the server returns one.
     * Idempotent: a start that finds the pipe already running (say, our own earlier attempt
     * whose answer was lost) and a stop that finds it stopped succeed with no record.
     */
    async pipeStateCommand(
      serviceId: string,
      pipeId: string,
      command: PipeStateCommand,
      opts?: CallOptions,
    ): Promise<Pipe | undefined> {
      const path = P.pipeState(await org(), serviceId, pipeId);
      const body = validateBody(pipeStateCommandBody, { command }, 'PATCH', path);
      try {
        return await pipeCall(
          serviceId,
          { method: 'PATCH', path, body, schema: pipeStateResult },
          opts,
        );
      } catch (error) {
        if (alreadyInState(error, command)) {
          logger?.info('pipe already in the requested state', {
            serviceId,
            pipeId,
            command,
          });
          return undefined;
        }
        throw error;
      }
    },
  };
}

/** Keys (spec 4.3, 4.4 and API-FACTS extras). */
function keyOperations({ org, call }: Operations) {
  return {
    /**
     * Without hashData a repeated POST would mint a second key, so it is retried only when
     * the server surely did not process it; with hashData a duplicate answers 409.
     */
    async createKey(body: CreateKeyRequest, opts?: CallOptions): Promise<CreateKeyResult> {
      const path = P.keys(await org());
      const valid = validateBody(createKeyRequest, body, 'POST', path);
      const result = await call(
        {
          method: 'POST',
          path,
          body: valid,
          schema: createKeyResult,
          idempotency: valid.hashData ? 'idempotent' : 'unsafe',
        },
        opts,
      );
      registerSecret(result.keySecret);
      return result;
    },
    async updateKey(
      keyRecordId: string,
      body: UpdateKeyRequest,
      opts?: CallOptions,
    ): Promise<KeyRecord> {
      const path = P.key(await org(), keyRecordId);
      const valid = validateBody(updateKeyRequest, body, 'PATCH', path);
      return call({ method: 'PATCH', path, body: valid, schema: keyRecord }, opts);
    },
    async listKeys(opts?: CallOptions): Promise<KeyRecord[]> {
      return call({ method: 'GET', path: P.keys(await org()), schema: z.array(keyRecord) }, opts);
    },
    async getKey(keyRecordId: string, opts?: CallOptions): Promise<KeyRecord> {
      return call(
        { method: 'GET', path: P.key(await org(), keyRecordId), schema: keyRecord },
        opts,
      );
    },
    async deleteKey(keyRecordId: string, opts?: CallOptions): Promise<void> {
      return call({ method: 'DELETE', path: P.key(await org(), keyRecordId), schema: null }, opts);
    },
    /** The organization's activities between two ISO times (one unpaginated array, all types). */
    async listActivities(
      range: { from: string; to: string },
      opts?: CallOptions,
    ): Promise<Activity[]> {
      const path = P.activities(await org(), range);
      return call({ method: 'GET', path, schema: z.array(activity) }, opts);
    },
  };
}

/**
 * The observability objects of one service beyond dashboards and alerts, with the Basic key
 * alone: validate, webhooks, saved searches, sources (August 2026 contract).
 */
function serviceObjects({ org, call }: Operations, serviceId: string): ObservabilityObjects {
  return observabilityObjects({
    collection: async (resource) => P.observability(await org(), serviceId, resource),
    item: async (resource, id) => P.observabilityItem(await org(), serviceId, resource, id),
    validatePath: async () => P.dashboardValidate(await org(), serviceId),
    call,
    async page(path, item, offset, opts) {
      // The document declares no paging parameters: the first page is asked as declared.
      const asked = offset === 0 ? path : withPage(path, PAGE_LIMIT, offset);
      const list = await call({ method: 'GET', path: asked, schema: pagedList(item) }, opts);
      return toPage(list.data, list.meta);
    },
  });
}

/** Observability objects through the management API (spec 4.5). */
function observabilityOperations(ops: Operations) {
  const { org, call } = ops;
  return {
    /** Everything else of one service's observability objects (see serviceObjects). */
    observability: (serviceId: string) => serviceObjects(ops, serviceId),
    async listDashboards(serviceId: string, opts?: CallOptions): Promise<Dashboard[]> {
      const path = P.observability(await org(), serviceId, 'dashboards');
      return call({ method: 'GET', path, schema: z.array(dashboard) }, opts);
    },
    async createDashboard(
      serviceId: string,
      body: DashboardWrite,
      opts?: CallOptions,
    ): Promise<Dashboard> {
      const path = P.observability(await org(), serviceId, 'dashboards');
      const valid = validateBody(dashboardWrite, body, 'POST', path);
      return call({ method: 'POST', path, body: valid, schema: dashboard }, opts);
    },
    async getDashboard(serviceId: string, id: string, opts?: CallOptions): Promise<Dashboard> {
      const path = P.observabilityItem(await org(), serviceId, 'dashboards', id);
      return call({ method: 'GET', path, schema: dashboard }, opts);
    },
    async updateDashboard(
      serviceId: string,
      id: string,
      body: DashboardWrite,
      opts?: CallOptions,
    ): Promise<Dashboard> {
      const path = P.observabilityItem(await org(), serviceId, 'dashboards', id);
      const valid = validateBody(dashboardWrite, body, 'PUT', path);
      return call({ method: 'PUT', path, body: valid, schema: dashboard }, opts);
    },
    async deleteDashboard(serviceId: string, id: string, opts?: CallOptions): Promise<void> {
      const path = P.observabilityItem(await org(), serviceId, 'dashboards', id);
      return call({ method: 'DELETE', path, schema: null }, opts);
    },
    /** Every alert of the service (the list is described as paginated: accept both shapes). */
    listAlerts: (serviceId: string, opts?: CallOptions): Promise<Alert[]> =>
      serviceObjects(ops, serviceId).listAlerts(opts),
    listSources: (serviceId: string, opts?: CallOptions) =>
      serviceObjects(ops, serviceId).listSources(opts),
    async createAlert(
      serviceId: string,
      body: CreateAlertBody,
      opts?: CallOptions,
    ): Promise<Alert> {
      const path = P.observability(await org(), serviceId, 'alerts');
      const valid = validateBody(createAlertBody, body, 'POST', path);
      return call({ method: 'POST', path, body: valid, schema: alert }, opts);
    },
    async getAlert(serviceId: string, id: string, opts?: CallOptions): Promise<Alert> {
      const path = P.observabilityItem(await org(), serviceId, 'alerts', id);
      return call({ method: 'GET', path, schema: alert }, opts);
    },
    async updateAlert(
      serviceId: string,
      id: string,
      body: UpdateAlertBody,
      opts?: CallOptions,
    ): Promise<Alert> {
      const path = P.observabilityItem(await org(), serviceId, 'alerts', id);
      const valid = validateBody(updateAlertBody, body, 'PUT', path);
      return call({ method: 'PUT', path, body: valid, schema: alert }, opts);
    },
    async deleteAlert(serviceId: string, id: string, opts?: CallOptions): Promise<void> {
      const path = P.observabilityItem(await org(), serviceId, 'alerts', id);
      return call({ method: 'DELETE', path, schema: null }, opts);
    },
  };
}

export interface MetricsCallOptions extends CallOptions {
  /** `filtered_metrics=true|false`; omitted when undefined (what it drops is undocumented). */
  readonly filteredMetrics?: boolean;
}

function withFilter(path: ApiPath, filteredMetrics: boolean | undefined): ApiPath {
  if (filteredMetrics === undefined) return path;
  return { ...path, path: `${path.path}?filtered_metrics=${String(filteredMetrics)}` };
}

/**
 * The metrics endpoint (API-FACTS "Metrics endpoint"): Prometheus text, one request per service
 * (or one for the organization), under the same key and rate limit as every management call.
 * Reading metrics never wakes an idle service: it answers its service-info metric alone, which
 * reads as `observed: false`.
 */
function metricsOperations({ org, call }: Operations) {
  return {
    async getServiceMetrics(
      serviceId: string,
      { filteredMetrics, ...opts }: MetricsCallOptions = {},
    ): Promise<ServiceReading> {
      const path = withFilter(P.serviceMetrics(await org(), serviceId), filteredMetrics);
      const schema = metricsBody((samples) => readServiceMetrics(samples, serviceId));
      try {
        return await call({ method: 'GET', path, schema, responseType: 'text' }, opts);
      } catch (error) {
        throw asServiceIdle(error, serviceId);
      }
    },
    /** Every service of the organization in one request. */
    async getOrganizationMetrics({ filteredMetrics, ...opts }: MetricsCallOptions = {}): Promise<
      ServiceReading[]
    > {
      const path = withFilter(P.organizationMetrics(await org()), filteredMetrics);
      const schema = metricsBody(readOrganizationMetrics);
      return call({ method: 'GET', path, schema, responseType: 'text' }, opts);
    },
  };
}
