/**
 * One watchdog pass: list every configured service's pipes (one request each, services in
 * parallel), decide per pipe, claim the decision in the store, then notify.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { ValidationError } from '../errors';
import { formatIssues } from '../format-issues';
import { silentLogger, type Logger } from '../log';
import type { Notifier } from '../notify/types';
import { pipeSourceKind, type Pipe, type PipeStateCommand } from '../schemas';
import { decide, policySchema, type Observation } from './decide';
import {
  claimPending,
  newPending,
  sendClaimed,
  settlePending,
  type DeliveryOutcome,
} from './deliver';
import { emfLine, type MetricsSink, type RunMetrics } from './metrics';
import type { StateStore } from './store';
import type { PendingDelivery, PipeNotification, PipeRecord, ServiceRecord } from './types';

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
});
export type WatchdogConfigInput = z.input<typeof watchdogConfigSchema>;
export type WatchdogConfig = z.output<typeof watchdogConfigSchema>;

export function parseWatchdogConfig(input: WatchdogConfigInput): WatchdogConfig {
  const parsed = watchdogConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issues = formatIssues(parsed.error.issues);
    throw new ValidationError(
      `invalid watchdog configuration: ${issues.join('; ')}`,
      'watchdog config',
      issues,
    );
  }
  return parsed.data;
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
}

export interface WatchdogError {
  stage: 'list' | 'store' | 'notify' | 'restart';
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
}

/** Only auto-restart streaming / object-storage pipes: a database (CDC) pipe needs a person. */
const RESTARTABLE = new Set(['kafka', 'objectStorage', 'kinesis']);

interface Versioned {
  version: number;
  pending: PendingDelivery[];
}

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
    },
  };
  const wanted = (pipeId: string) =>
    (!config.includePipes || config.includePipes.includes(pipeId)) &&
    !config.excludePipes.includes(pipeId);

  /** Records this run wrote with notifications it claimed: delivered together after the pass. */
  const claims: {
    pending: PendingDelivery[];
    where: { serviceId: string; pipeId?: string };
    /** Record what was delivered (re-reads and retries when the version moved). */
    settle(outcome: DeliveryOutcome): Promise<boolean>;
  }[] = [];
  /** Auto-restarts this run won, started once their notices went out. */
  const restarts: (() => Promise<void>)[] = [];

  /**
   * Write `candidate` (claims its new and reclaimed notifications) unless nothing changed; if
   * the write wins, queue what this run claimed for delivery.
   */
  async function claim<R extends Versioned>(
    previous: R | undefined,
    candidate: R,
    io: { save(r: R): Promise<boolean>; reload(): Promise<R | undefined> },
    where: { serviceId: string; pipeId?: string },
  ): Promise<boolean> {
    const same = (a: R, b: R) =>
      JSON.stringify({ ...a, version: 0, lastSeenAt: 0 }) ===
      JSON.stringify({ ...b, version: 0, lastSeenAt: 0 });
    if (previous && same(previous, candidate)) return false;
    if (!(await io.save(candidate))) {
      logger.info('another run claimed this change; leaving it to that run', where);
      return false;
    }
    const claimed = candidate.pending.filter((p) => p.claimedBy === runId);
    if (claimed.length === 0) return true;
    result.notifications.push(...claimed.map((p) => p.notification));
    claims.push({
      pending: candidate.pending,
      where,
      async settle(outcome) {
        // A concurrent writer may have moved the version: re-read and retry.
        let current: R | undefined = candidate;
        for (let attempt = 0; current && attempt < 5; attempt++) {
          const settled = {
            ...current,
            pending: settlePending(current.pending, runId, outcome),
            version: current.version + 1,
          };
          if (await io.save(settled)) return true;
          current = await io.reload();
        }
        return false;
      },
    });
    return true;
  }

  /** One delivery for the whole pass (batching notifiers make as few calls as they can). */
  async function deliverClaimed() {
    if (claims.length === 0) return;
    const outcome = await sendClaimed(
      claims.map((c) => c.pending),
      runId,
      deps.notifiers,
      logger,
      deps.signal,
    );
    const whereOf = new Map(
      claims.flatMap((c) => c.pending.map((p) => [p.notification.id, c.where] as const)),
    );
    for (const e of outcome.errors) {
      const where = whereOf.get(e.notificationId) ?? { serviceId: '' };
      result.errors.push({ stage: 'notify', ...where, notifier: e.notifier, message: e.message });
    }
    await Promise.all(
      claims.map(async (c) => {
        let message = 'could not record delivery; the notification may be sent again';
        try {
          if (await c.settle(outcome)) return;
        } catch (error) {
          message = `${message}: ${(error as Error).message}`;
        }
        result.errors.push({ stage: 'store', ...c.where, message });
      }),
    );
  }

  async function checkPipe(
    previous: PipeRecord | undefined,
    observed: Observation,
    pipe: Pipe | undefined,
    serviceId: string,
    now: number,
  ) {
    const decision = decide(previous, observed, now, policy);
    const next = decision.next;
    const notifications = [...decision.notifications];
    if (previous && !('gone' in observed) && previous.state !== observed.state)
      result.metrics.transitions += 1;

    const restart =
      pipe && !('gone' in observed) && config.autoRestart.enabled
        ? planRestart(next, pipe, now, config)
        : undefined;
    if (restart) notifications.push(restart);

    const candidate: PipeRecord = {
      ...next,
      pending: [
        ...claimPending(previous?.pending ?? [], runId, now, config.leaseMs),
        ...newPending(notifications, deps.notifiers, runId, now),
      ],
      version: previous ? previous.version + 1 : 0,
    };
    const where = { serviceId, pipeId: next.pipeId };
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
          await deps.api.pipeStateCommand(serviceId, next.pipeId, 'start', {
            signal: deps.signal,
          });
        } catch (error) {
          result.metrics.apiErrors += 1;
          result.errors.push({ stage: 'restart', ...where, message: (error as Error).message });
        }
      });
    }
  }

  async function serviceHealth(
    serviceId: string,
    previous: ServiceRecord | undefined,
    failure: string | undefined,
    now: number,
  ) {
    const base: ServiceRecord = previous ?? {
      organizationId: config.organizationId,
      serviceId,
      consecutiveFailures: 0,
      announced: false,
      pending: [],
      version: -1,
    };
    const notifications: PipeNotification[] = [];
    const say = (
      severity: PipeNotification['severity'],
      kind: PipeNotification['kind'],
      message: string,
    ): PipeNotification => ({
      id: `${config.organizationId}/${serviceId}/-/${kind}/${now}`,
      kind,
      severity,
      organizationId: config.organizationId,
      serviceId,
      pipeId: '',
      pipeName: '',
      from: '',
      to: '',
      at: new Date(now).toISOString(),
      since: new Date(now).toISOString(),
      message,
    });
    let next: ServiceRecord;
    if (failure !== undefined) {
      const failures = base.consecutiveFailures + 1;
      const announce = failures >= config.selfWatchAfterFailures && !base.announced;
      if (announce) {
        notifications.push(
          say(
            'critical',
            'watchdog',
            `The watchdog could not list the pipes of service ${serviceId} in ${failures} consecutive runs: ${failure}`,
          ),
        );
      }
      next = {
        ...base,
        consecutiveFailures: failures,
        lastError: failure,
        announced: base.announced || announce,
      };
    } else {
      if (!previous) return;
      if (base.announced)
        notifications.push(
          say('info', 'recovery', `The watchdog can list the pipes of service ${serviceId} again`),
        );
      next = { ...base, consecutiveFailures: 0, lastError: undefined, announced: false };
    }
    const candidate: ServiceRecord = {
      ...next,
      pending: [
        ...claimPending(base.pending, runId, now, config.leaseMs),
        ...newPending(notifications, deps.notifiers, runId, now),
      ],
      version: base.version + 1,
    };
    await claim(
      previous,
      candidate,
      {
        save: (r) => deps.store.saveService(r),
        reload: () => deps.store.getService(config.organizationId, serviceId),
      },
      { serviceId },
    );
  }

  async function checkService(serviceId: string) {
    const [listing, stored] = await Promise.allSettled([
      deps.api.listPipes(serviceId, { signal: deps.signal }),
      deps.store.loadService(config.organizationId, serviceId),
    ]);
    if (stored.status === 'rejected') {
      result.errors.push({ stage: 'store', serviceId, message: (stored.reason as Error).message });
      return;
    }
    if (listing.status === 'rejected') {
      const message = (listing.reason as Error).message;
      result.metrics.apiErrors += 1;
      result.errors.push({ stage: 'list', serviceId, message });
      logger.warn('could not list pipes', { serviceId, error: listing.reason });
      await serviceHealth(serviceId, stored.value.service, message, deps.now());
      return;
    }
    // Decisions use the time the listing answered (a paced run can take a while).
    const observedAt = deps.now();
    await serviceHealth(serviceId, stored.value.service, undefined, observedAt);
    const previous = new Map(stored.value.pipes.map((r) => [r.pipeId, r]));
    const pipes = listing.value.filter((p) => wanted(p.id));
    result.checked += pipes.length;
    const seen = new Set(pipes.map((p) => p.id));
    const work: Promise<void>[] = pipes.map((p) =>
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
      ),
    );
    for (const record of previous.values()) {
      if (
        !seen.has(record.pipeId) &&
        wanted(record.pipeId) &&
        (!record.gone || record.pending.length > 0)
      ) {
        work.push(checkPipe(record, { gone: true }, undefined, serviceId, observedAt));
      }
    }
    const outcomes = await Promise.allSettled(work);
    for (const o of outcomes) {
      if (o.status === 'rejected')
        result.errors.push({ stage: 'store', serviceId, message: (o.reason as Error).message });
    }
  }

  // Claim everything first, then deliver once: N notifications cost ceil(N / 10) calls per
  // batching notifier instead of N.
  await Promise.all(config.serviceIds.map((id) => checkService(id)));
  await deliverClaimed();
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
