import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '../../lib/log';
import { authenticateKey, parseBasic, requireRole } from '../auth';
import { ApiError, badRequest, notFound } from '../errors';
import { jsonReply, textReply } from '../http';
import type { Reply } from '../http';
import { isObjectId, isUuid } from '../ids';
import type { RateLimiter } from '../rate-limit';
import { matchRoute } from '../router';
import type { Route, RouteMatch } from '../router';
import type { Store } from '../store';
import { TextResult, type ManagementHandler } from './context';
import { activityRoutes } from './activities';
import { keyRoutes } from './keys';
import { pipeRoutes } from './pipes';
import type { Profile } from '../profiles';

function managementRoutes(profile: Profile): Route<ManagementHandler>[] {
  return [
    ...keyRoutes,
    ...activityRoutes,
    ...pipeRoutes,
    ...profile.managementObservabilityRoutes,
    ...profile.metricsRoutes,
  ];
}

export interface SurfaceRequest {
  requestId: string;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  remoteAddress: string;
  bodyText: string;
  query: URLSearchParams;
}

export interface SurfaceResult {
  reply: Reply;
  credential?: string;
  keyRecordId?: string;
}

const UUID_PARAMS = ['organizationId', 'serviceId', 'pipeId', 'keyRecordId'];
export const OBJECT_ID_PARAMS = [
  'dashboardId',
  'alertId',
  'webhookId',
  'savedSearchId',
  'sourceId',
];

export function managementError(
  error: ApiError,
  requestId: string,
  headers: Record<string, string> = {},
): Reply {
  return jsonReply(
    error.status,
    { status: error.status, error: `${error.code}: ${error.message}`, requestId },
    headers,
  );
}

export function managementRateLimited(resetSeconds: number, requestId: string): Reply {
  const headers = {
    'x-ratelimit-reset': String(resetSeconds),
    'retry-after': String(resetSeconds),
  };
  return managementError(
    new ApiError(429, 'TOO_MANY_REQUESTS', 'rate limit exceeded, retry later'),
    requestId,
    headers,
  );
}

/** Only the key ID's last 4 characters identify the caller in logs (as `keySuffix` does). */
export function managementCredentialLabel(headers: IncomingHttpHeaders): string | undefined {
  return parseBasic(headers.authorization)?.keyId.slice(-4);
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}

function checkParams(store: Store, params: Record<string, string>): void {
  for (const name of UUID_PARAMS) {
    const value = params[name];
    if (value !== undefined && !isUuid(value))
      throw badRequest(`invalid ${name} "${value}": expected a UUID`);
  }
  for (const name of OBJECT_ID_PARAMS) {
    const value = params[name];
    if (value !== undefined && !isObjectId(value))
      throw badRequest(`invalid ${name} "${value}": expected a 24-character hex id`);
  }
  if (params.organizationId !== store.state.organizationId)
    throw notFound(`organization ${params.organizationId} not found`);
  if (params.serviceId !== undefined && !store.service(params.serviceId)) {
    throw notFound(`service ${params.serviceId} not found`);
  }
}

/** Minute precision, as the real `usedAt`. */
function minuteIso(ms: number): string {
  return new Date(Math.floor(ms / 60_000) * 60_000).toISOString();
}

interface ManagementSurfaceDeps {
  store: Store;
  now: () => number;
  limiter: RateLimiter;
  logger: Logger;
  profile: Profile;
}

export function createManagementSurface(deps: ManagementSurfaceDeps) {
  const { store, limiter, logger, profile } = deps;
  const routes = managementRoutes(profile);
  return {
    match: (method: string, path: string) => matchRoute(routes, method, path),

    /** Order: 401 (auth), 429 (per key), 403 (role), 400 (params/body), 404, then the operation. */
    process(match: RouteMatch<ManagementHandler>, req: SurfaceRequest): SurfaceResult {
      const credential = managementCredentialLabel(req.headers);
      let keyRecordId: string | undefined;
      try {
        const now = deps.now();
        const key = authenticateKey(
          store,
          parseBasic(req.headers.authorization),
          req.remoteAddress,
          now,
        );
        keyRecordId = key.id;
        const rate = limiter.take(key.id);
        if (!rate.allowed)
          return {
            reply: managementRateLimited(rate.resetSeconds, req.requestId),
            credential,
            keyRecordId,
          };
        const usedAt = minuteIso(now);
        if (key.usedAt !== usedAt) {
          key.usedAt = usedAt;
          store.changed();
        }
        requireRole(store, key, match.route.handler.admin);
        checkParams(store, match.params);
        const body = parseJsonBody(req.bodyText);
        const result = match.route.handler.run({
          params: match.params,
          body,
          key,
          store,
          now,
          profile,
          query: req.query,
          remoteAddress: req.remoteAddress,
          userAgent: String(req.headers['user-agent'] ?? ''),
        });
        if (result instanceof TextResult)
          return {
            reply: textReply(200, result.text, result.contentType),
            credential,
            keyRecordId,
          };
        const envelope =
          result === undefined
            ? { status: 200, requestId: req.requestId }
            : { status: 200, requestId: req.requestId, result };
        return { reply: jsonReply(200, envelope), credential, keyRecordId };
      } catch (error) {
        if (error instanceof ApiError)
          return { reply: managementError(error, req.requestId), credential, keyRecordId };
        logger.error('sandbox management handler failed', {
          error: error as Error,
          method: req.method,
          path: req.path,
        });
        const internal = new ApiError(500, 'INTERNAL_SERVER_ERROR', 'internal error');
        return { reply: managementError(internal, req.requestId), credential, keyRecordId };
      }
    },
  };
}
