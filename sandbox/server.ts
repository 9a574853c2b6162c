import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../lib/log';
import type { FaultDecision, Faults } from './faults';
import { cannotRoute, gatewayTimeoutHtml, jsonReply, readBody, writeReply } from './http';
import type { Reply } from './http';
import { uuidV4 } from './ids';
import { ApiError } from './errors';
import {
  managementCredentialLabel,
  managementError,
  managementRateLimited,
} from './management/surface';
import type { createManagementSurface } from './management/surface';
import type { SurfaceRequest, SurfaceResult } from './management/surface';
import { observabilityRateLimited } from './observability/surface';
import type { createObservabilitySurface } from './observability/surface';
import type { RequestLog, Surface } from './request-log';
import type { Store } from './store';

interface DispatchDeps {
  store: Store;
  faults: Faults;
  requestLog: RequestLog;
  logger: Logger;
  admin: { handle(method: string, path: string, bodyText: string): Reply | undefined };
}

type HttpSurface = 'management' | 'observability';
interface SurfaceProcessor {
  routes(method: string, path: string): boolean;
  /** "METHOD /pattern" of the matched route: the fault draw's key (ids in paths vary per run). */
  routePattern(method: string, path: string): string;
  process(method: string, path: string, req: SurfaceRequest): SurfaceResult;
  /** A log label for the caller without authenticating (faulted requests). */
  credentialOf(req: SurfaceRequest): string | undefined;
}

/** The reply a fault stands for, in the surface's own error shape (nothing is applied). */
function faultReply(
  surface: HttpSurface,
  kind: '429' | '500' | 'html504',
  requestId: string,
): Reply {
  if (kind === 'html504') return gatewayTimeoutHtml();
  if (surface === 'management') {
    if (kind === '429') return managementRateLimited(1, requestId);
    return managementError(new ApiError(500, 'INTERNAL_SERVER_ERROR', 'injected fault'), requestId);
  }
  if (kind === '429')
    return observabilityRateLimited({ allowed: false, limit: 0, remaining: 0, resetSeconds: 1 });
  return jsonReply(500, { message: 'Internal Server Error' });
}

function resetConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket?.destroy();
}

/**
 * One request on the management or observability listener:
 * admin routes -> unrouted (HTML 404) -> fault -> surface (auth, rate limit, operation) -> write -> flush state.
 * Fault effects: reset, 429, 500, html504 apply nothing; latency delays then applies normally;
 * truncate applies the operation and then cuts the body.
 */
function createListener(surface: HttpSurface, processor: SurfaceProcessor, deps: DispatchDeps) {
  const { store, faults, requestLog, logger } = deps;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const path = url.pathname;
    const requestId = uuidV4();
    const log = (
      logSurface: Surface,
      status: number,
      extra: Partial<SurfaceResult> & { fault?: FaultDecision } = {},
    ) => {
      const entry = requestLog.add({
        surface: logSurface,
        method,
        path,
        status,
        ...(extra.credential !== undefined ? { credential: extra.credential } : {}),
        ...(extra.keyRecordId !== undefined ? { keyRecordId: extra.keyRecordId } : {}),
        requestId,
        ...(extra.fault ? { fault: extra.fault.kind } : {}),
      });
      logger.debug('sandbox request', { ...entry });
    };

    const bodyText = await readBody(req);
    if (path.startsWith('/_sandbox/')) {
      const reply = deps.admin.handle(method, path, bodyText) ?? cannotRoute(method, path);
      // Durable before acknowledged: a kill right after the reply must lose nothing.
      store.flush();
      writeReply(res, reply);
      // Reading the log must not grow it.
      if (!path.startsWith('/_sandbox/requests')) log('admin', reply.status);
      return;
    }

    const request: SurfaceRequest = {
      requestId,
      method,
      path,
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress ?? '',
      bodyText,
      query: url.searchParams,
    };
    if (!processor.routes(method, path)) {
      const reply = cannotRoute(method, path);
      writeReply(res, reply);
      log(surface, reply.status);
      return;
    }

    const fault = faults.decide(`${method} ${path}`, true, processor.routePattern(method, path));
    if (fault?.kind === 'reset') {
      log(surface, 0, { credential: processor.credentialOf(request), fault });
      resetConnection(res);
      return;
    }
    if (fault?.kind === 'latency') await sleep(fault.latencyMs);
    if (fault && (fault.kind === '429' || fault.kind === '500' || fault.kind === 'html504')) {
      const reply = faultReply(surface, fault.kind, requestId);
      writeReply(res, reply);
      log(surface, reply.status, { credential: processor.credentialOf(request), fault });
      return;
    }

    const result = processor.process(method, path, request);
    store.flush();
    writeReply(res, result.reply, fault?.kind === 'truncate');
    log(surface, result.reply.status, { ...result, fault });
  };
}

export function createManagementListener(
  deps: DispatchDeps,
  surface: ReturnType<typeof createManagementSurface>,
) {
  return createListener(
    'management',
    {
      routes: (method, path) => surface.match(method, path) !== undefined,
      routePattern: (method, path) => `${method} ${surface.match(method, path)!.route.pattern}`,
      process: (method, path, req) => surface.process(surface.match(method, path)!, req),
      credentialOf: (req) => managementCredentialLabel(req.headers),
    },
    deps,
  );
}

export function createObservabilityListener(
  deps: DispatchDeps,
  surface: ReturnType<typeof createObservabilitySurface>,
) {
  return createListener(
    'observability',
    {
      routes: (method, path) => surface.match(method, path) !== undefined,
      routePattern: (method, path) => `${method} ${surface.match(method, path)!.route.pattern}`,
      process: (method, path, req) => surface.process(surface.match(method, path)!, req),
      credentialOf: (req) => surface.credentialLabel(req),
    },
    deps,
  );
}

export async function listen(server: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** A node:http server whose async handler never leaves a promise unhandled. */
export function httpServer(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  logger: Logger,
): Server {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      logger.error('sandbox request failed', { error: error as Error });
      if (!res.headersSent) writeReply(res, jsonReply(500, { message: 'Internal Server Error' }));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  return server;
}

/**
 * The Secrets Manager listener: helper C's emulator does the work; this adds the request log and
 * faults. Only queued faults or a spec whose `routes` matches "POST /secretsmanager.<Operation>"
 * reach it (a global random spec leaves it alone); `truncate` is not applied here.
 */
export function createSecretsManagerListener(
  deps: Pick<DispatchDeps, 'faults' | 'requestLog' | 'logger'>,
  emulator: { handle(req: IncomingMessage, res: ServerResponse): void },
) {
  const { faults, requestLog, logger } = deps;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'POST';
    const path = new URL(req.url ?? '/', 'http://sandbox.invalid').pathname;
    const targetHeader = req.headers['x-amz-target'];
    const target = (Array.isArray(targetHeader) ? targetHeader[0] : targetHeader) ?? '';
    const operation = target.replace(/^secretsmanager\./, '');
    const log = (status: number, fault?: FaultDecision) => {
      const entry = requestLog.add({
        surface: 'secretsmanager',
        method,
        path,
        status,
        ...(operation ? { operation } : {}),
        ...(fault ? { fault: fault.kind } : {}),
      });
      logger.debug('sandbox request', { ...entry });
    };
    let fault = faults.decide(`${method} /${target}`, false);
    if (fault?.kind === 'truncate') fault = undefined;
    if (fault?.kind === 'reset') {
      log(0, fault);
      resetConnection(res);
      return;
    }
    if (fault?.kind === 'latency') await sleep(fault.latencyMs);
    if (fault && fault.kind !== 'latency') {
      const reply =
        fault.kind === 'html504'
          ? gatewayTimeoutHtml()
          : jsonReply(
              fault.kind === '429' ? 429 : 500,
              fault.kind === '429'
                ? { __type: 'ThrottlingException', message: 'Rate exceeded' }
                : { __type: 'InternalServiceError', message: 'injected fault' },
              { 'content-type': 'application/x-amz-json-1.1' },
            );
      await readBody(req);
      writeReply(res, reply);
      log(reply.status, fault);
      return;
    }
    res.once('finish', () => log(res.statusCode, fault));
    emulator.handle(req, res);
  };
}
