import type { Logger } from '../../lib/log';
import { authenticateToken, parseBearer } from '../auth';
import { ApiError, badRequest, ReplyError } from '../errors';
import { jsonReply, textReply } from '../http';
import type { Reply } from '../http';
import { isObjectId } from '../ids';
import { OBJECT_ID_PARAMS, parseJsonBody } from '../management/surface';
import type { SurfaceRequest, SurfaceResult } from '../management/surface';
import type { RateDecision, RateLimiter } from '../rate-limit';
import { matchRoute } from '../router';
import type { RouteMatch } from '../router';
import type { Store } from '../store';
import { Paged } from './routes';
import type { ObservabilityHandler } from './routes';
import type { Profile } from '../profiles';

function rateHeaders(rate: RateDecision): Record<string, string> {
  return {
    'ratelimit-limit': String(rate.limit),
    'ratelimit-remaining': String(rate.remaining),
    'ratelimit-reset': String(rate.resetSeconds),
  };
}

export function observabilityRateLimited(rate: RateDecision): Reply {
  return jsonReply(
    429,
    { message: 'Too many requests, please try again later.' },
    { ...rateHeaders(rate), 'retry-after': String(rate.resetSeconds) },
  );
}

/** Like the real stack: a missing or bad token gets a plain-text 401, not JSON. */
const unauthorizedText = (): Reply => textReply(401, 'Unauthorized');

interface ObservabilitySurfaceDeps {
  store: Store;
  now: () => number;
  limiter: RateLimiter;
  logger: Logger;
  profile: Profile;
}

export function createObservabilitySurface(deps: ObservabilitySurfaceDeps) {
  const { store, limiter, logger, profile } = deps;
  return {
    match: (method: string, path: string) => matchRoute(profile.apiV2Routes, method, path),

    credentialLabel: (req: Pick<SurfaceRequest, 'headers'>) =>
      authenticateToken(store, parseBearer(req.headers.authorization))?.label,

    process(match: RouteMatch<ObservabilityHandler>, req: SurfaceRequest): SurfaceResult {
      const token = authenticateToken(store, parseBearer(req.headers.authorization));
      if (!token) return { reply: unauthorizedText() };
      const credential = token.label;
      const rate = limiter.take(token.label);
      if (!rate.allowed) return { reply: observabilityRateLimited(rate), credential };
      const headers = rateHeaders(rate);
      try {
        for (const name of OBJECT_ID_PARAMS) {
          const value = match.params[name];
          if (value !== undefined && !isObjectId(value))
            throw badRequest(profile.invalidObjectIdMessage(value));
        }
        const body = parseJsonBody(req.bodyText);
        const data = match.route.handler({
          params: match.params,
          body,
          serviceId: token.serviceId,
          store,
          now: deps.now(),
          query: req.query,
        });
        if (data instanceof Paged) {
          const pageHeaders = { ...headers, 'x-total-count': String(data.meta.total) };
          return {
            reply: jsonReply(200, { data: data.data, meta: data.meta }, pageHeaders),
            credential,
          };
        }
        return { reply: jsonReply(200, data === undefined ? {} : { data }, headers), credential };
      } catch (error) {
        if (error instanceof ReplyError) return { reply: error.reply, credential };
        if (error instanceof ApiError)
          return {
            reply: jsonReply(error.status, { message: error.message }, headers),
            credential,
          };
        logger.error('sandbox observability handler failed', {
          error: error as Error,
          method: req.method,
          path: req.path,
        });
        return { reply: jsonReply(500, { message: 'Internal Server Error' }, headers), credential };
      }
    },
  };
}
