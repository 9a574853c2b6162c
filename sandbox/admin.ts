import { redact, REDACTED } from '../lib/redact';
import { ApiError, badRequest, notFound } from './errors';
import type { FaultKind, FaultSpec, Faults } from './faults';
import { jsonReply } from './http';
import type { Reply } from './http';
import { parseJsonBody } from './management/surface';
import { metricsAdminRoutes } from './metrics/routes';
import type { RequestLog } from './request-log';
import { matchRoute, route } from './router';
import type { Store } from './store';
import { addWebhook, issueToken } from './seed';

interface AdminDeps {
  store: Store;
  requestLog: RequestLog;
  faults: Faults;
  clock: { now(): number; advance(ms: number): void };
  setPipeState(pipeId: string, state: string): void;
  setServiceState(serviceId: string, state: 'running' | 'idle'): void;
}

type AdminHandler = (deps: AdminDeps, params: Record<string, string>, body: unknown) => unknown;

function record(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('body must be a JSON object');
  return body as Record<string, unknown>;
}

const isIsoTime = (value: unknown): value is string =>
  typeof value === 'string' &&
  /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(value) &&
  !Number.isNaN(Date.parse(value));

/**
 * Ages a key (tests of the key audit): `createdAt` and `usedAt` as ISO times, `usedAt: null` for
 * never used. `usedAt` is kept to the minute, as the service keeps it.
 */
function ageKey(store: Store, keyRecordId: string, body: unknown): unknown {
  const key = store.key(keyRecordId);
  if (!key) throw notFound(`API key ${keyRecordId} not found`);
  const { createdAt, usedAt, ...rest } = record(body);
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw badRequest(`${unknown.join(', ')}: not a field of this route (createdAt, usedAt)`);
  if (createdAt !== undefined && !isIsoTime(createdAt))
    throw badRequest('createdAt: expected an ISO-8601 date-time');
  if (usedAt !== undefined && usedAt !== null && !isIsoTime(usedAt))
    throw badRequest('usedAt: expected an ISO-8601 date-time or null (never used)');
  if (createdAt !== undefined) key.createdAt = new Date(createdAt).toISOString();
  if (usedAt === null) delete key.usedAt;
  else if (usedAt !== undefined)
    key.usedAt = new Date(Math.floor(Date.parse(usedAt) / 60_000) * 60_000).toISOString();
  store.changed();
  const { keyIdHash: _id, keySecretHash: _secret, ...view } = key;
  return view;
}

function serviceFor(deps: AdminDeps, serviceId: unknown): string {
  const id = typeof serviceId === 'string' ? serviceId : deps.store.state.seed.serviceId;
  if (!deps.store.service(id)) throw notFound(`service ${id} not found`);
  return id;
}

const maskValues = (map: Record<string, string>) =>
  Object.fromEntries(Object.keys(map).map((name) => [name, REDACTED]));

/** State without anything secret: no hashes, no seed credentials, no connection strings, no secret values. */
function redactedState(store: Store, secretsManagerState: unknown): unknown {
  const { seed, keys, tokens, pipes, webhooks, ...rest } = store.state;
  const sm = secretsManagerState as {
    secrets?: {
      name: string;
      arn: string;
      rotationEnabled?: boolean;
      versions?: { versionId: string; stages: string[] }[];
    }[];
  };
  return redact({
    ...rest,
    seed: {
      serviceId: seed.serviceId,
      keyRecordId: seed.keyRecordId,
      pipeIds: seed.pipeIds,
      webhookId: seed.webhookId,
      keySecretId: seed.keySecretId,
      observabilityTokenSecretId: seed.observabilityTokenSecretId,
    },
    keys: keys.map(({ keyIdHash: _a, keySecretHash: _b, ...key }) => key),
    tokens: tokens.map(({ tokenHash: _h, ...token }) => token),
    // Write-only webhook headers and query parameters carry credentials: their names only.
    webhooks: webhooks.map(({ headers, queryParams, ...webhook }) => ({
      ...webhook,
      ...(headers ? { headers: maskValues(headers) } : {}),
      ...(queryParams ? { queryParams: maskValues(queryParams) } : {}),
    })),
    pipes: pipes.map((pipe) => {
      const objectStorage = pipe.source?.objectStorage;
      if (!objectStorage?.connectionString) return pipe;
      return {
        ...pipe,
        source: { ...pipe.source, objectStorage: { ...objectStorage, connectionString: REDACTED } },
      };
    }),
    secretsManager: sm?.secrets?.map((s) => ({
      name: s.name,
      arn: s.arn,
      rotationEnabled: s.rotationEnabled,
      versions: s.versions?.map((v) => ({ versionId: v.versionId, stages: v.stages })),
    })),
  });
}

export function createAdmin(deps: AdminDeps, secretsManagerState: () => unknown) {
  const routes = [
    route<AdminHandler>('GET', '/_sandbox/state', (d) =>
      redactedState(d.store, secretsManagerState()),
    ),
    route<AdminHandler>('GET', '/_sandbox/requests', (d) => ({ entries: d.requestLog.entries() })),
    route<AdminHandler>('DELETE', '/_sandbox/requests', (d) => {
      d.requestLog.clear();
      return { cleared: true };
    }),
    route<AdminHandler>('PUT', '/_sandbox/pipes/:pipeId/state', (d, params, body) => {
      const state = record(body).state;
      if (typeof state !== 'string' || state === '')
        throw badRequest('state: expected a non-empty string');
      if (!d.store.pipe(params.pipeId)) throw notFound(`pipe ${params.pipeId} not found`);
      d.setPipeState(params.pipeId, state);
      return d.store.pipe(params.pipeId);
    }),
    route<AdminHandler>('PUT', '/_sandbox/services/:serviceId/state', (d, params, body) => {
      const state = record(body).state;
      if (state !== 'running' && state !== 'idle')
        throw badRequest('state: expected "running" or "idle"');
      if (!d.store.service(params.serviceId))
        throw notFound(`service ${params.serviceId} not found`);
      d.setServiceState(params.serviceId, state);
      return d.store.service(params.serviceId);
    }),
    route<AdminHandler>('PATCH', '/_sandbox/keys/:keyRecordId', (d, params, body) =>
      ageKey(d.store, params.keyRecordId, body),
    ),
    ...metricsAdminRoutes,
    route<AdminHandler>('GET', '/_sandbox/faults', (d) => ({ spec: d.faults.current() ?? null })),
    route<AdminHandler>('DELETE', '/_sandbox/faults', (d) => {
      d.faults.clear();
      return { spec: null };
    }),
    route<AdminHandler>('POST', '/_sandbox/faults', (d, _params, body) => {
      try {
        if (typeof body === 'string') d.faults.set(body);
        else {
          const fields = record(body);
          if (fields.clear === true) d.faults.clear();
          else if (fields.queue !== undefined)
            d.faults.queue(
              record(fields.queue) as { route?: string; kind: FaultKind; count?: number },
            );
          else d.faults.set(fields as unknown as FaultSpec);
        }
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw badRequest((error as Error).message);
      }
      return { spec: d.faults.current() ?? null };
    }),
    route<AdminHandler>('POST', '/_sandbox/clock', (d, _params, body) => {
      const advanceMs = record(body).advanceMs;
      if (typeof advanceMs !== 'number' || !Number.isFinite(advanceMs) || advanceMs < 0) {
        throw badRequest(
          'advanceMs: expected a number >= 0 (the sandbox clock only moves forward)',
        );
      }
      d.clock.advance(advanceMs);
      return { now: new Date(d.clock.now()).toISOString() };
    }),
    route<AdminHandler>('POST', '/_sandbox/webhooks', (d, _params, body) => {
      const fields = record(body);
      const serviceId = serviceFor(d, fields.serviceId);
      const webhook = addWebhook(
        d.store.state,
        serviceId,
        typeof fields.name === 'string' ? fields.name : undefined,
        typeof fields.url === 'string' ? fields.url : undefined,
      );
      d.store.changed();
      return webhook;
    }),
    route<AdminHandler>('POST', '/_sandbox/tokens', (d, _params, body) => {
      const fields = record(body);
      const serviceId = serviceFor(d, fields.serviceId);
      try {
        const { token, row } = issueToken(
          d.store.state,
          serviceId,
          d.clock.now(),
          typeof fields.label === 'string' ? fields.label : undefined,
        );
        d.store.changed();
        return { token, label: row.label, serviceId };
      } catch (error) {
        throw new ApiError(409, 'CONFLICT', (error as Error).message);
      }
    }),
  ];

  return {
    /** Undefined when the path is not an admin route. */
    handle(method: string, path: string, bodyText: string): Reply | undefined {
      const match = matchRoute(routes, method, path);
      if (!match) return undefined;
      try {
        const value = match.route.handler(deps, match.params, parseJsonBody(bodyText));
        return jsonReply(200, value ?? null);
      } catch (error) {
        if (error instanceof ApiError)
          return jsonReply(error.status, { error: `${error.code}: ${error.message}` });
        throw error;
      }
    },
  };
}
