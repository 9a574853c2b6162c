/**
 * One watchdog pass, the executor around pure decisions: per service (services in parallel,
 * paced by the client's limiter) ONE request, the metrics or the listing (observe.ts chooses) →
 * planService (service-plan.ts) → each record written with the notices it claims, and that
 * service's notices handed to delivery at once, while the other services are still being read.
 * Claims and delivery are lib/watch's.
 */
import { randomUUID } from 'node:crypto';
import { isServiceIdle } from '../api/errors';
import { silentLogger, type Logger } from '../log';
import type { Pipe, PipeStateCommand } from '../schemas';
import type { ServiceReading } from '../schemas/metrics';
import type { Claim } from '../watch/claims';
import type { Notifier } from '../watch/notifiers/types';
import { WatchRun } from '../watch/run';
import type { WatchStore } from '../watch/store';
import type { PipeNotice } from '../watch/subjects/pipe';
import type { ServiceNotice } from '../watch/subjects/service';
import type { ServiceRecord } from './types';
import { emfLine, type MetricsSink, type RunMetrics } from './metrics';
import {
  chooseSource,
  metricsUnserved,
  type ObservationSource,
  type ServiceObservation,
} from './observe';
import { loadService, pipeIo, serviceIo } from './records';
import { planService, type PipeStep } from './service-plan';
import type { WatchdogConfig } from './watchdog-config';

/** The API operations the watchdog needs (the management client provides them). */
export interface PipeApi {
  getServiceMetrics(serviceId: string, opts?: { signal?: AbortSignal }): Promise<ServiceReading>;
  listPipes(serviceId: string, opts?: { signal?: AbortSignal }): Promise<Pipe[]>;
  pipeStateCommand(
    serviceId: string,
    pipeId: string,
    command: PipeStateCommand,
    opts?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

/**
 * One service's pipes as `source` reads them: its metrics, or its listing when that is the
 * source or the metrics endpoint is not served (then `onUnserved` is told). Errors are the
 * caller's to classify (idle, failed, stopped).
 */
export async function readPipesOf(
  api: Pick<PipeApi, 'getServiceMetrics' | 'listPipes'>,
  serviceId: string,
  source: ObservationSource,
  opts: { signal?: AbortSignal | undefined; onUnserved?: () => void },
): Promise<ServiceObservation> {
  const call = { signal: opts.signal };
  const listing = async (metricsUnserved?: boolean): Promise<ServiceObservation> => ({
    via: 'listing',
    pipes: await api.listPipes(serviceId, call),
    ...(metricsUnserved ? { metricsUnserved } : {}),
  });
  if (source === 'listing') return listing();
  try {
    return { via: 'metrics', reading: await api.getServiceMetrics(serviceId, call) };
  } catch (error) {
    if (!metricsUnserved(error)) throw error;
    opts.onUnserved?.();
    return listing(true);
  }
}

export interface WatchdogDeps {
  api: PipeApi;
  store: WatchStore;
  notifiers: readonly Notifier[];
  /** Wall-clock milliseconds (injected: tests drive time). */
  now: () => number;
  logger?: Logger;
  /** Where the EMF metrics line goes (stdout in Lambda). */
  metricsSink?: MetricsSink;
  runId?: string;
  signal?: AbortSignal;
  /** Only these services (a fan-out message's); default every configured one. */
  serviceIds?: readonly string[];
  /**
   * Aborts when the run must stop taking on services (the Lambda's remaining time): services
   * not listed by then are returned in `unfinished`, never half-done.
   */
  stopSignal?: AbortSignal;
  /** Fan-out: mark each finished service with this id; a service already marked is skipped. */
  resumeMarker?: string;
}

export interface WatchdogError {
  stage: 'list' | 'store' | 'notify' | 'restart' | 'dropped';
  serviceId: string;
  pipeId?: string;
  notifier?: string;
  message: string;
  /** The HTTP status the API answered a failed listing with (a 401 names the key to check). */
  status?: number;
}

export interface WatchdogResult {
  /** Pipes observed this run. */
  checked: number;
  /** Notices this run claimed and attempted, in order per pipe. */
  notifications: WatchdogNotice[];
  errors: WatchdogError[];
  metrics: RunMetrics;
  /** Services answering 424 or whose metrics say idle: not checked, not an error. */
  idle: string[];
  /** Services whose metrics observed no pipe this run (a partial scrape): not an error. */
  notObserved: string[];
  /** Services not checked before the stop signal (left for the next run). */
  unfinished: string[];
  /** Services a previous attempt of the same fan-out run already finished. */
  skipped: string[];
}

/** What the watchdog tells: about pipes, and about the services it watches. */
export type WatchdogNotice = PipeNotice | ServiceNotice;

/** Where a record is, in the watchdog's terms (its errors carry it). */
interface Where {
  serviceId: string;
  pipeId?: string;
}

/** One pass's shared parts: the claim-and-deliver run, the result so far, the restarts won. */
interface Pass {
  config: WatchdogConfig;
  deps: WatchdogDeps;
  logger: Logger;
  run: WatchRun<Where, WatchdogNotice>;
  result: WatchdogResult;
  /** Pipes whose auto-restart this pass won: started once their notices went out. */
  restarts: Required<Where>[];
}

export async function runWatchdog(
  config: WatchdogConfig,
  deps: WatchdogDeps,
): Promise<WatchdogResult> {
  const started = deps.now();
  const runId = deps.runId ?? randomUUID();
  const logger = (deps.logger ?? silentLogger).child({ runId });
  const run = new WatchRun<Where, WatchdogNotice>({
    notifiers: deps.notifiers,
    now: deps.now,
    logger,
    runId,
    signal: deps.signal,
    leaseMs: config.leaseMs,
    limits: config.delivery,
  });
  const result: WatchdogResult = {
    checked: 0,
    notifications: run.claimed,
    errors: [],
    metrics: {
      pipesChecked: 0,
      transitions: 0,
      notifications: 0,
      apiErrors: 0,
      notifyErrors: 0,
      durationMs: 0,
      servicesIdle: 0,
      deliveriesDropped: 0,
    },
    idle: [],
    notObserved: [],
    unfinished: [],
    skipped: [],
  };
  const pass: Pass = { config, deps, logger, run, result, restarts: [] };
  await Promise.all((deps.serviceIds ?? config.serviceIds).map((id) => checkService(pass, id)));
  await run.finish();
  await Promise.all(pass.restarts.map((where) => restart(pass, where)));

  for (const f of run.failures) {
    const notifier = f.notifier ? { notifier: f.notifier } : {};
    result.errors.push({ stage: f.stage, ...f.where, ...notifier, message: f.message });
  }
  const m = result.metrics;
  m.pipesChecked = result.checked;
  m.notifications = result.notifications.length;
  m.notifyErrors = result.errors.filter((e) => e.stage === 'notify').length;
  m.deliveriesDropped = run.dropped;
  m.durationMs = Math.max(0, deps.now() - started);
  deps.metricsSink?.(emfLine(m, deps.now()));
  logger.info('watchdog run finished', { ...m, errors: result.errors.length });
  return result;
}

/** One service: its records, ONE request, the plan, the writes; then its notices go out. */
async function checkService(pass: Pass, serviceId: string): Promise<void> {
  const { config, deps, result } = pass;
  if (deps.stopSignal?.aborted) return void result.unfinished.push(serviceId);
  let stored;
  try {
    stored = await loadService(deps.store, config.organizationId, serviceId);
  } catch (error) {
    result.errors.push({ stage: 'store', serviceId, message: (error as Error).message });
    return;
  }
  if (deps.resumeMarker && stored.service?.lastRunId === deps.resumeMarker)
    return void result.skipped.push(serviceId);
  const observation = await observe(pass, serviceId, stored.service);
  if (observation === 'stopped') return void result.unfinished.push(serviceId);
  // Decisions use the time the answer came (a paced run can take a while).
  const observedAt = deps.now();
  const plan = planService(config, serviceId, stored, observation, observedAt, deps.resumeMarker);
  if (plan.outcome !== 'listed') {
    const idle = plan.outcome === 'idle';
    if (idle) result.metrics.servicesIdle += 1;
    if (plan.outcome !== 'failed') (idle ? result.idle : result.notObserved).push(serviceId);
    pass.logger.info(`service ${plan.outcome}; its pipes are not checked`, { serviceId });
  }
  result.checked += plan.checked;
  result.metrics.transitions += plan.transitions;
  const health = await pass.run.claim({
    previous: stored.service,
    next: plan.health.next,
    notices: plan.health.notifications,
    io: serviceIo(deps.store, config.organizationId, serviceId),
    where: { serviceId },
    at: observedAt,
  });
  const claims: Claim<Where>[] = health ? [health] : [];
  const written = await Promise.allSettled(plan.pipes.map((s) => claimPipe(pass, s, observedAt)));
  for (const o of written) {
    if (o.status === 'rejected')
      result.errors.push({ stage: 'store', serviceId, message: (o.reason as Error).message });
    else if (o.value) claims.push(o.value);
  }
  // This service is decided: its notices go now, not after the whole pass.
  pass.run.deliver(claims);
}

async function claimPipe(pass: Pass, step: PipeStep, at: number) {
  const where = { serviceId: step.next.serviceId, pipeId: step.next.pipeId };
  const claim = await pass.run.claim({
    previous: step.previous,
    next: step.next,
    notices: step.notifications,
    io: pipeIo(pass.deps.store, step.next),
    where,
    at,
  });
  if (claim && step.restart) pass.restarts.push(where);
  return claim;
}

/** The service's metrics, or its listing for what the metrics lack (observe.ts), or why neither. */
async function observe(
  pass: Pass,
  serviceId: string,
  service: ServiceRecord | undefined,
): Promise<ServiceObservation | 'stopped'> {
  const { deps, result } = pass;
  const signals = [deps.signal, deps.stopSignal].filter((s): s is AbortSignal => !!s);
  const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
  const onUnserved = () =>
    pass.logger.info('metrics endpoint not served; listing the pipes', { serviceId });
  try {
    return await readPipesOf(deps.api, serviceId, chooseSource(service, deps.now()), {
      signal,
      onUnserved,
    });
  } catch (error) {
    if (deps.stopSignal?.aborted && !deps.signal?.aborted) return 'stopped';
    const message = (error as Error).message;
    if (isServiceIdle(error)) return { kind: 'idle', message };
    result.metrics.apiErrors += 1;
    const status = (error as { status?: unknown }).status;
    result.errors.push({
      stage: 'list',
      serviceId,
      message,
      ...(typeof status === 'number' ? { status } : {}),
    });
    pass.logger.warn('could not read the pipes', { serviceId, error });
    return { kind: 'failed', message };
  }
}

async function restart(pass: Pass, where: Required<Where>): Promise<void> {
  try {
    await pass.deps.api.pipeStateCommand(where.serviceId, where.pipeId, 'start', {
      signal: pass.deps.signal,
    });
  } catch (error) {
    pass.result.metrics.apiErrors += 1;
    pass.result.errors.push({ stage: 'restart', ...where, message: (error as Error).message });
  }
}
