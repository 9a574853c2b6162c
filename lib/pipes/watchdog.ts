/**
 * One watchdog pass, the executor around two pure deciders: per service, ONE listing (services
 * in parallel, paced by the client's limiter) → `decideServiceHealth` → per pipe `decide` →
 * a conditional write claiming the notifications (claims.ts) → delivery of that service's
 * notifications at once, while the other services are still being listed.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { isServiceIdle } from '../api/errors';
import { parseOrThrow } from '../format-issues';
import { silentLogger, type Logger } from '../log';
import type { Notifier } from '../notify/types';
import { pipeSourceKind, type Pipe, type PipeStateCommand } from '../schemas';
import type { Claim } from './claims';
import { claimRecord, Delivery, type RecordIo, type Versioned, type Where } from './claims';
import { decide, policySchema, type Observation } from './decide';
import {
  boundPending,
  claimPending,
  deliveryLimitsSchema,
  dropUnknownNotifiers,
  newPending,
  type DroppedDelivery,
} from './deliver';
import { decideServiceHealth, type ListingOutcome } from './health';
import { emfLine, type MetricsSink, type RunMetrics } from './metrics';
import type { StateStore } from './store';
import type { PipeNotification, PipeRecord, ServiceRecord } from './types';

export const watchdogConfigSchema = z.strictObject({
  organizationId: z.string().min(1),
  serviceIds: z.array(z.string().min(1)).min(1),
  /** Only these pipe ids (all when absent). */
  includePipes: z.array(z.string().min(1)).optional(),
  excludePipes: z.array(z.string().min(1)).default([]),
  policy: policySchema.prefault({}),
  /** Notify after this many consecutive runs that could not list a service. */
  selfWatchAfterFailures: z.number().int().positive().default(3),
  autoRestart: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** At most this many start attempts per pipe inside `windowMs`. */
      maxAttempts: z.number().int().positive().default(3),
      windowMs: z.number().int().positive().default(3_600_000),
    })
    .prefault({}),
  /** A run's claim on pending notifications expires after this (a crashed run's are retaken). */
  leaseMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  delivery: deliveryLimitsSchema.prefault({}),
});
export type WatchdogConfigInput = z.input<typeof watchdogConfigSchema>;
export type WatchdogConfig = z.output<typeof watchdogConfigSchema>;

export function parseWatchdogConfig(input: WatchdogConfigInput): WatchdogConfig {
  return parseOrThrow(
    watchdogConfigSchema,
    input,
    'watchdog config',
    'invalid watchdog configuration',
  );
}

/** The two API operations the watchdog needs (the management client provides both). */
export interface PipeApi {
  listPipes(serviceId: string, opts?: { signal?: AbortSignal }): Promise<Pipe[]>;
  pipeStateCommand(
    serviceId: string,
    pipeId: string,
    command: PipeStateCommand,
    opts?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

export interface WatchdogDeps {
  api: PipeApi;
  store: StateStore;
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
}

export interface WatchdogResult {
  /** Pipes observed this run. */
  checked: number;
  /** Notifications this run claimed and attempted, in order per pipe. */
  notifications: PipeNotification[];
  errors: WatchdogError[];
  metrics: RunMetrics;
  /** Services answering 424 (idle): not checked, not an error. */
  idle: string[];
  /** Services not checked before the stop signal (left for the next run). */
  unfinished: string[];
  /** Services a previous attempt of the same fan-out run already finished. */
  skipped: string[];
}

/** Only auto-restart streaming / object-storage pipes: a database (CDC) pipe needs a person. */
const RESTARTABLE = new Set(['kafka', 'objectStorage', 'kinesis']);

export async function runWatchdog(
  config: WatchdogConfig,
  deps: WatchdogDeps,
): Promise<WatchdogResult> {
  const started = deps.now();
  const runId = deps.runId ?? randomUUID();
  const logger = (deps.logger ?? silentLogger).child({ runId });
  const { policy } = config;
  const result: WatchdogResult = {
    checked: 0,
    notifications: [],
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
    unfinished: [],
    skipped: [],
  };
  const wanted = (pipeId: string) =>
    (!config.includePipes || config.includePipes.includes(pipeId)) &&
    !config.excludePipes.includes(pipeId);
  const onDropped = (d: DroppedDelivery, where: Where) => {
    result.metrics.deliveriesDropped += 1;
    logger.error('pending notification dropped', {
      ...where,
      notificationId: d.notification.id,
      reason: d.reason,
      notifiers: d.remaining,
    });
    result.errors.push({
      stage: 'dropped',
      ...where,
      message: `gave up delivering ${d.notification.id} to ${d.remaining.join(', ')} (${d.reason})`,
    });
  };
  const delivery = new Delivery({
    runId,
    notifiers: deps.notifiers,
    limits: config.delivery,
    now: deps.now,
    logger,
    signal: deps.signal,
    onError: (e) =>
      result.errors.push({ stage: 'notify', ...e.where, notifier: e.notifier, message: e.message }),
    onStoreError: (where, message) => result.errors.push({ stage: 'store', ...where, message }),
    onDropped,
  });
  /** Auto-restarts this run won, started once their notices went out. */
  const restarts: (() => Promise<void>)[] = [];

  /** The record to write: its pending list claimed, extended and bounded. */
  function withPending<R extends Versioned>(
    next: R,
    previous: R | undefined,
    notifications: PipeNotification[],
    now: number,
    where: Where,
  ): R {
    const carried = dropUnknownNotifiers(
      claimPending(previous?.pending ?? [], runId, now, config.leaseMs),
      deps.notifiers,
    );
    const bounded = boundPending(
      [...carried, ...newPending(notifications, deps.notifiers, runId, now)],
      now,
      config.delivery,
    );
    for (const d of bounded.dropped) onDropped(d, where);
    return { ...next, pending: bounded.pending };
  }

  async function claim<R extends Versioned>(
    previous: R | undefined,
    candidate: R,
    io: RecordIo<R>,
    where: Where,
  ): Promise<Claim | undefined> {
    const outcome = await claimRecord(previous, candidate, io, where, runId, logger);
    if (typeof outcome === 'string') return undefined;
    result.notifications.push(...outcome.claimed.map((p) => p.notification));
    return outcome;
  }

  async function checkPipe(
    previous: PipeRecord | undefined,
    observed: Observation,
    pipe: Pipe | undefined,
    serviceId: string,
    now: number,
    baseline: boolean,
  ): Promise<Claim | undefined> {
    const decision = decide(previous, observed, now, policy, { baseline });
    const next = decision.next;
    const notifications = [...decision.notifications];
    if (previous && !('gone' in observed) && previous.state !== observed.state)
      result.metrics.transitions += 1;

    const restart =
      pipe && !('gone' in observed) && config.autoRestart.enabled
        ? planRestart(next, pipe, now, config)
        : undefined;
    if (restart) notifications.push(restart);

    const where = { serviceId, pipeId: next.pipeId };
    const candidate = withPending(
      { ...next, version: previous ? previous.version + 1 : 0 },
      previous,
      notifications,
      now,
      where,
    );
    const won = await claim(
      previous,
      candidate,
      {
        save: (r) => deps.store.savePipe(r),
        reload: () => deps.store.getPipe(next.organizationId, serviceId, next.pipeId),
      },
      where,
    );
    if (won && restart) {
      restarts.push(async () => {
        try {
          await deps.api.pipeStateCommand(serviceId, next.pipeId, 'start', { signal: deps.signal });
        } catch (error) {
          result.metrics.apiErrors += 1;
          result.errors.push({ stage: 'restart', ...where, message: (error as Error).message });
        }
      });
    }
    return won;
  }

  async function serviceHealth(
    serviceId: string,
    previous: ServiceRecord | undefined,
    outcome: ListingOutcome,
    now: number,
  ): Promise<{ claim: Claim | undefined; baseline: boolean }> {
    const decision = decideServiceHealth(previous, outcome, now, {
      organizationId: config.organizationId,
      serviceId,
      selfWatchAfterFailures: config.selfWatchAfterFailures,
      runId: deps.resumeMarker,
    });
    const candidate = withPending(
      { ...decision.next, version: (previous?.version ?? -1) + 1 },
      previous,
      decision.notifications,
      now,
      { serviceId },
    );
    const claimed = await claim(
      previous,
      candidate,
      {
        save: (r) => deps.store.saveService(r),
        reload: () => deps.store.getService(config.organizationId, serviceId),
      },
      { serviceId },
    );
    return { claim: claimed, baseline: decision.baseline };
  }

  async function list(serviceId: string): Promise<ListingOutcome | Pipe[] | 'stopped'> {
    const signals = [deps.signal, deps.stopSignal].filter((s): s is AbortSignal => !!s);
    try {
      return await deps.api.listPipes(serviceId, {
        signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
      });
    } catch (error) {
      if (deps.stopSignal?.aborted && !deps.signal?.aborted) return 'stopped';
      const message = (error as Error).message;
      if (isServiceIdle(error)) return { kind: 'idle', message };
      result.metrics.apiErrors += 1;
      result.errors.push({ stage: 'list', serviceId, message });
      logger.warn('could not list pipes', { serviceId, error });
      return { kind: 'failed', message };
    }
  }

  async function checkService(serviceId: string) {
    if (deps.stopSignal?.aborted) {
      result.unfinished.push(serviceId);
      return;
    }
    let stored;
    try {
      stored = await deps.store.loadService(config.organizationId, serviceId);
    } catch (error) {
      result.errors.push({ stage: 'store', serviceId, message: (error as Error).message });
      return;
    }
    if (deps.resumeMarker && stored.service?.lastRunId === deps.resumeMarker) {
      result.skipped.push(serviceId);
      return;
    }
    const listing = await list(serviceId);
    if (listing === 'stopped') {
      result.unfinished.push(serviceId);
      return;
    }
    // Decisions use the time the listing answered (a paced run can take a while).
    const observedAt = deps.now();
    if (!Array.isArray(listing)) {
      if (listing.kind === 'idle') {
        result.metrics.servicesIdle += 1;
        result.idle.push(serviceId);
        logger.info('service idle; its pipes are not checked', { serviceId });
      }
      const { claim: claimed } = await serviceHealth(
        serviceId,
        stored.service,
        listing,
        observedAt,
      );
      if (claimed) delivery.add([claimed]);
      return;
    }
    const previous = new Map(stored.pipes.map((r) => [r.pipeId, r]));
    const pipes = listing.filter((p) => wanted(p.id));
    result.checked += pipes.length;
    const seen = new Set(pipes.map((p) => p.id));
    const health = await serviceHealth(serviceId, stored.service, { kind: 'listed' }, observedAt);
    const baseline = health.baseline && stored.pipes.length === 0;
    const work: Promise<Claim | undefined>[] = pipes.map((p) =>
      checkPipe(
        previous.get(p.id),
        {
          organizationId: config.organizationId,
          serviceId,
          pipeId: p.id,
          pipeName: p.name,
          state: p.state,
          updatedAt: p.updatedAt,
        },
        p,
        serviceId,
        observedAt,
        baseline,
      ),
    );
    for (const record of previous.values()) {
      if (
        !seen.has(record.pipeId) &&
        wanted(record.pipeId) &&
        (!record.gone || record.pending.length > 0)
      ) {
        work.push(checkPipe(record, { gone: true }, undefined, serviceId, observedAt, false));
      }
    }
    const claims: Claim[] = health.claim ? [health.claim] : [];
    for (const o of await Promise.allSettled(work)) {
      if (o.status === 'rejected')
        result.errors.push({ stage: 'store', serviceId, message: (o.reason as Error).message });
      else if (o.value) claims.push(o.value);
    }
    // This service is decided: its notifications go now, not after the whole pass.
    delivery.add(claims);
  }

  await Promise.all((deps.serviceIds ?? config.serviceIds).map((id) => checkService(id)));
  await delivery.drain();
  await Promise.all(restarts.map((start) => start()));

  result.metrics.pipesChecked = result.checked;
  result.metrics.notifications = result.notifications.length;
  result.metrics.notifyErrors = result.errors.filter((e) => e.stage === 'notify').length;
  result.metrics.durationMs = Math.max(0, deps.now() - started);
  deps.metricsSink?.(emfLine(result.metrics, deps.now()));
  logger.info('watchdog run finished', { ...result.metrics, errors: result.errors.length });
  return result;
}

/** An auto-restart attempt for a Failed streaming pipe, within the per-window budget. */
function planRestart(
  next: PipeRecord,
  pipe: Pipe,
  now: number,
  config: WatchdogConfig,
): PipeNotification | undefined {
  const { maxAttempts, windowMs } = config.autoRestart;
  next.restarts = next.restarts.filter((t) => now - t < windowMs);
  // The service accepts `start` only from Stopped or Failed; InternalError needs a person.
  if (pipe.state !== 'Failed' || !RESTARTABLE.has(pipeSourceKind(pipe))) return undefined;
  if (next.restarts.length >= maxAttempts) return undefined;
  next.restarts.push(now);
  return {
    id: `${next.organizationId}/${next.serviceId}/${next.pipeId}/restart/${now}`,
    kind: 'restart',
    severity: 'warning',
    organizationId: next.organizationId,
    serviceId: next.serviceId,
    pipeId: next.pipeId,
    pipeName: next.pipeName,
    from: pipe.state,
    to: pipe.state,
    at: new Date(now).toISOString(),
    since: new Date(next.since).toISOString(),
    message: `Auto-restarting pipe ${next.pipeName} (attempt ${next.restarts.length} of ${maxAttempts} per ${Math.round(windowMs / 60_000)} min)`,
  };
}
