/**
 * Applies alert events (DESIGN.md "Events"): the executor around planAlerts() (plan.ts).
 * Idempotent although the create API is not: every alert cloudops writes carries an ownership
 * marker (marker.ts), and the plan matches markers in the alert list.
 *
 * Cost: a session (one SQS batch, one CLI run, or one provision() call) lists the alerts at
 * most once up front, keeps that snapshot current with its own writes, and lists once more
 * after its creates (per round) to confirm them and to catch copies made by racers; copies are
 * settled deterministically (plan.ts). An event whose declarations equal those of the last
 * complete apply of its owner (the version store's `settled` record) costs no request at all.
 *
 * A create whose answer was lost (timeout, reset, 5xx) is looked for in a re-list at once
 * (write.ts, the create-once helper) and made again only when absent. It may still land after
 * that re-list; when it had to be made again, or a newer event overtook the apply, the event
 * fails so that its redelivery (after the queue's visibility timeout) lists again and removes
 * a late copy. By then the redelivery may be stale: it plans against the newest declaration
 * the version store keeps, so an alert the newest event no longer declares is removed too.
 *
 * Order between events of one owner comes from the version store (versions.ts): an event
 * first claims its version, and only then writes. Claiming before applying keeps "nothing
 * lost on a crash": a retry of the same event finds its own version stored ("current") and
 * applies again, while any older event is refused from then on. Before each write the store is
 * read again, so an event overtaken while it works stops instead of overwriting the newer one.
 */
import { CreateNotConfirmedError, type AlertBackend } from '../api';
import { CloudOpsError, ValidationError, type ErrorOptions } from '../errors';
import type { AlertEvent } from '../events/schemas';
import { silentLogger, type Logger } from '../log';
import { redactText } from '../redact';
import type { Alert } from '../schemas';
import {
  desiredDigest,
  desiredFromEvent,
  versionOwner,
  type DesiredAlert,
  type DesiredSet,
} from './desired';
import { compareVersions } from './marker';
import { KeyedMutex } from './mutex';
import { planAlerts, type AlertOutcome, type AlertStep } from './plan';
import {
  claimVersion,
  compactDeclaration,
  scopedKey,
  versionMillis,
  type VersionStore,
} from './versions';
import { AlertWriter } from './write';

export type { AlertAction, AlertOutcome } from './plan';

export interface ProvisionResult {
  /** e.g. `Dashboard Synced event 5d1c…` */
  event: string;
  version: string;
  outcomes: AlertOutcome[];
  /** One per declaration that could not be applied (the record then fails). */
  errors: string[];
  /** POST, PUT and DELETE requests sent. */
  writes: number;
}

/** Some declarations of the event could not be applied; the others were. */
export class AlertProvisionError extends CloudOpsError {
  override name = 'AlertProvisionError';
  readonly result: ProvisionResult;
  constructor(message: string, options: ErrorOptions & { result: ProvisionResult }) {
    super(message, options);
    this.result = options.result;
  }
}

export interface AlertProvisionerOptions {
  backend: AlertBackend;
  logger?: Logger;
  /** Share one per process so every provisioner serializes on the same owners. */
  mutex?: KeyedMutex;
  /** POSTs per alert (a re-list after each unknown outcome) before it is reported. @default 4 */
  maxCreateRounds?: number;
  /**
   * The newest version seen per owner: DynamoDB in the function, a file in the CLI (tests pass
   * a MemoryVersionStore, which orders events within one process only). No default, so the
   * function bundles no store it never uses.
   */
  versions: VersionStore;
  /**
   * Prefixes every version key, naming the alerts' home (see versionScope()), so one store
   * (a CLI state file) used against two services keeps their owners apart. @default ''
   */
  versionScope?: string;
  /**
   * How far in the future an event's version may be. Further is refused (the record fails,
   * naming the field): once recorded, a far-future version would mark every real event after
   * it as stale. @default 5 minutes
   */
  maxClockSkewMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export interface ProvisionOptions {
  /** Names the event in errors (the SQS message id); default the envelope id. */
  ref?: string;
  signal?: AbortSignal;
  /**
   * A redelivery (SQS receive count > 1): never skipped as already settled, and even when
   * stale it removes duplicates its earlier attempt may have left.
   */
  redelivered?: boolean;
}

export interface SessionOptions {
  signal?: AbortSignal;
}

/** Several events applied with one alert list (an SQS batch, a CLI run). */
export interface AlertSession {
  /** Applies one event's plan (creates unconfirmed). Throws for an event that cannot start. */
  add(event: AlertEvent, options?: Omit<ProvisionOptions, 'signal'>): Promise<void>;
  /** Confirms creates (re-lists), settles copies; one result or error per added event, in order. */
  finish(): Promise<({ ok: true; result: ProvisionResult } | { ok: false; error: Error })[]>;
}

export interface AlertProvisioner {
  provision(event: AlertEvent, options?: ProvisionOptions): Promise<ProvisionResult>;
  session(options?: SessionOptions): AlertSession;
}

export function createAlertProvisioner(options: AlertProvisionerOptions): AlertProvisioner {
  const config: Config = {
    backend: options.backend,
    log: options.logger ?? silentLogger,
    mutex: options.mutex ?? new KeyedMutex(),
    versions: options.versions,
    scope: options.versionScope ?? '',
    maxRounds: options.maxCreateRounds ?? 4,
    maxSkew: options.maxClockSkewMs ?? 5 * 60_000,
    now: options.now ?? Date.now,
  };
  return {
    async provision(event, opts = {}) {
      const session = new Session(config, opts.signal, false);
      // One event: hold its owner for the whole apply, so copies in this process never race.
      const [outcome] = await config.mutex.run(versionOwner(event), async () => {
        await session.add(event, opts);
        return session.finish();
      });
      if (!outcome.ok) throw outcome.error;
      return outcome.result;
    },
    session: (opts = {}) => new Session(config, opts.signal, true),
  };
}

interface Config {
  backend: AlertBackend;
  log: Logger;
  mutex: KeyedMutex;
  versions: VersionStore;
  scope: string;
  maxRounds: number;
  maxSkew: number;
  now: () => number;
}

/** The alert list of a session, kept current with the session's own writes. */
class AlertSnapshot {
  private alerts: Alert[] | undefined;

  constructor(
    private readonly backend: AlertBackend,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async get(): Promise<readonly Alert[]> {
    return (this.alerts ??= await this.list());
  }

  async refresh(): Promise<readonly Alert[]> {
    this.alerts = await this.list();
    return this.alerts;
  }

  put(alert: Alert): void {
    if (!this.alerts) return;
    this.alerts = [...this.alerts.filter((a) => a.id !== alert.id), alert];
  }

  remove(id: string): void {
    if (this.alerts) this.alerts = this.alerts.filter((a) => a.id !== id);
  }

  private list(): Promise<Alert[]> {
    return this.backend.listAlerts({ signal: this.signal });
  }
}

/** One event inside a session. */
interface Entry {
  label: string;
  key: string;
  owner: string;
  desired: DesiredSet;
  digest: string;
  result: ProvisionResult;
  log: Logger;
  /** Owners created and not yet confirmed by the session's re-list; POSTs made so far. */
  pending: Map<string, { desired: DesiredAlert; attempts: number }>;
  /** Owners with a POST whose outcome stayed unknown (it may still land): why, per owner. */
  unsure: Map<string, string>;
  overtaken?: string;
  /** Thrown before or outside the plan (validation, a failed list): the event fails with it. */
  error?: Error;
  /** Settled without listing, or stale: nothing to confirm, nothing to record. */
  skipped: boolean;
}

/** Thrown before a write when a newer event claimed the owner meanwhile. */
class Overtaken extends CloudOpsError {
  override name = 'Overtaken';
  readonly newest: string;
  constructor(message: string, options: ErrorOptions & { newest: string }) {
    super(message, options);
    this.newest = options.newest;
  }
}

class Session implements AlertSession {
  private readonly snapshot: AlertSnapshot;
  private readonly writer: AlertWriter;
  private readonly entries: Entry[] = [];

  constructor(
    private readonly c: Config,
    private readonly signal: AbortSignal | undefined,
    /** false when the caller already holds the owner's lock (provision()). */
    private readonly lock: boolean,
  ) {
    this.snapshot = new AlertSnapshot(c.backend, signal);
    this.writer = new AlertWriter({
      backend: c.backend,
      relist: () => this.snapshot.refresh(),
      // Not waited for here: a late landing is what the failed event's redelivery cleans up.
      settleMs: 0,
      ...(signal ? { signal } : {}),
    });
  }

  private locked<T>(owner: string, work: () => Promise<T>): Promise<T> {
    return this.lock ? this.c.mutex.run(owner, work) : work();
  }

  async add(event: AlertEvent, opts: Omit<ProvisionOptions, 'signal'> = {}): Promise<void> {
    this.signal?.throwIfAborted();
    const owner = versionOwner(event);
    const key = scopedKey(this.c.scope, owner);
    const label = `${event['detail-type']} event ${opts.ref ?? event.id ?? '(no id)'}`;
    const desired = desiredFromEvent(event);
    const entry: Entry = {
      label,
      key,
      owner,
      desired,
      digest: desiredDigest(desired),
      result: { event: label, version: desired.version, outcomes: [], errors: [], writes: 0 },
      log: this.c.log.child({ event: label }),
      pending: new Map(),
      unsure: new Map(),
      skipped: false,
    };
    this.entries.push(entry);
    try {
      refuseFuture(event, label, desired.version, this.c.now() + this.c.maxSkew);
      await this.locked(owner, () => this.start(entry, opts.redelivered === true));
    } catch (error) {
      entry.error =
        error instanceof Error ? error : new CloudOpsError(String(error), { cause: error });
    }
  }

  private async start(entry: Entry, redelivered: boolean): Promise<void> {
    const { versions } = this.c;
    const { desired } = entry;
    const declaration = compactDeclaration(entry.digest, [
      ...desired.alerts.map((a) => a.id),
      ...desired.blocked.map((b) => b.id),
    ]);
    const claim = await claimVersion(versions, entry.key, desired.version, declaration);
    if (claim.status === 'stale') {
      entry.log.info('older than the newest event seen; skipped', {
        version: desired.version,
        newest: claim.newest,
      });
      entry.skipped = true;
      const detail = `newer event ${claim.newest} already seen`;
      for (const d of desired.alerts) this.outcome(entry, stale(d, detail));
      // Its earlier attempt may have left a late copy, or a late create the newest event no
      // longer declares (applied after that event listed): remove those, change nothing else.
      if (redelivered) await this.cleanUpAfter(entry);
      return;
    }
    const settled = redelivered ? undefined : await versions.settled?.(entry.key);
    const base = claim.status === 'advanced' ? claim.previous : desired.version;
    if (settled && settled.digest === entry.digest && settled.version === base) {
      // Same declarations as the last complete apply: nothing to list, nothing to write.
      entry.skipped = true;
      for (const d of desired.alerts) {
        this.outcome(entry, {
          action: 'unchanged',
          owner: d.id,
          name: d.body.name,
          detail: 'as last applied',
        });
      }
      if (claim.status === 'advanced') {
        await versions.markSettled?.(entry.key, { version: desired.version, digest: entry.digest });
      }
      return;
    }
    const steps = planAlerts({ desired, observed: await this.snapshot.get() });
    await this.execute(entry, steps);
  }

  /** A stale redelivery: plans against the newest stored declaration of its owner. */
  private async cleanUpAfter(entry: Entry): Promise<void> {
    const newest = await this.c.versions.newest?.(entry.key);
    const declaration = newest?.declaration;
    if (!declaration && entry.desired.dashboardKey !== undefined) {
      entry.log.warn('newest declaration not stored; only duplicates are removed', {
        newest: newest?.version,
      });
    }
    const steps = planAlerts({
      desired: entry.desired,
      observed: await this.snapshot.get(),
      dedupeOnly: true,
      ...(newest && declaration
        ? { newest: { version: newest.version, owners: new Set(declaration.owners) } }
        : {}),
    });
    // Planned against that newest version: an even newer event stops it before any write.
    await this.execute(entry, steps, undefined, newest?.version ?? null);
  }

  async finish(): Promise<({ ok: true; result: ProvisionResult } | { ok: false; error: Error })[]> {
    for (let round = 1; this.entries.some((e) => e.pending.size > 0 && !e.error); round += 1) {
      this.signal?.throwIfAborted();
      // One re-list for every event of the session: confirms creates, shows racers' copies.
      const observed = await this.snapshot.refresh().catch((error: unknown) => {
        for (const e of this.entries) if (e.pending.size > 0) e.error ??= asError(error);
        return undefined;
      });
      if (!observed) break;
      for (const entry of this.entries) {
        if (entry.pending.size === 0 || entry.error) continue;
        await this.locked(entry.owner, () => this.confirm(entry, round));
      }
    }
    const out: ({ ok: true; result: ProvisionResult } | { ok: false; error: Error })[] = [];
    for (const entry of this.entries) out.push(await this.close(entry));
    return out;
  }

  private async confirm(entry: Entry, round: number): Promise<void> {
    const pending = entry.pending;
    entry.pending = new Map();
    const observed = await this.snapshot.get();
    const steps = planAlerts({ desired: entry.desired, observed, only: new Set(pending.keys()) });
    const retry: AlertStep[] = [];
    for (const step of steps) {
      // A create here: the alert answered as created is not in the list (removed since?).
      if (step.kind === 'create' && round >= this.c.maxRounds) {
        this.fail(
          entry,
          step.desired.id,
          step.desired.body.name,
          notConfirmed(step.desired, this.c),
        );
        continue;
      }
      retry.push(step);
    }
    await this.execute(entry, retry, pending);
  }

  private async close(
    entry: Entry,
  ): Promise<{ ok: true; result: ProvisionResult } | { ok: false; error: Error }> {
    const { result } = entry;
    if (entry.error) {
      if (entry.error instanceof Overtaken) return { ok: true, result };
      return { ok: false, error: entry.error };
    }
    for (const what of entry.unsure.values()) {
      result.errors.push(
        `${what}: an earlier create timed out and may still land; retry the event to remove a late copy`,
      );
    }
    if (result.errors.length > 0)
      return {
        ok: false,
        error: new AlertProvisionError(`${result.event}: ${result.errors.join('; ')}`, { result }),
      };
    if (!entry.skipped && !entry.overtaken) {
      await this.c.versions.markSettled?.(entry.key, {
        version: entry.desired.version,
        digest: entry.digest,
      });
    }
    return { ok: true, result };
  }

  /**
   * Runs steps in order; stops the event (the rest stale) when an event newer than `planned`
   * (the version the steps were planned against; null: no check) overtakes it.
   */
  private async execute(
    entry: Entry,
    steps: readonly AlertStep[],
    attempts?: ReadonlyMap<string, { attempts: number }>,
    planned: string | null = entry.desired.version,
  ): Promise<void> {
    try {
      for (const step of steps) {
        this.signal?.throwIfAborted();
        await this.step(entry, step, attempts, planned);
      }
    } catch (error) {
      if (!(error instanceof Overtaken)) throw error;
      this.overtake(entry, error.newest);
    }
  }

  private async step(
    entry: Entry,
    step: AlertStep,
    attempts: ReadonlyMap<string, { attempts: number }> | undefined,
    planned: string | null,
  ): Promise<void> {
    if (step.kind === 'report') {
      if (step.outcome.action === 'failed') {
        this.fail(entry, step.outcome.owner, step.outcome.name, step.outcome.detail ?? 'failed');
      } else this.outcome(entry, step.outcome);
      return;
    }
    if (planned !== null) await this.checkNotOvertaken(entry, planned);
    if (step.kind === 'create') return this.create(entry, step, attempts, planned);
    entry.result.writes += 1;
    if (step.kind === 'update') {
      const d = step.desired;
      try {
        this.snapshot.put(await this.writer.update(step.alertId, step.body));
        this.outcome(entry, {
          action: step.action,
          owner: d.id,
          name: d.body.name,
          alertId: step.alertId,
          detail: step.detail,
        });
      } catch (error) {
        const why = `update of alert ${step.alertId} failed: ${message(error)}`;
        this.fail(entry, d.id, d.body.name, `${describe(d)}: ${why}`);
      }
      return;
    }
    if (step.action === 'duplicate-removed') {
      entry.log.warn('duplicate alert found; removing', {
        owner: step.owner,
        removed: step.alertId,
        why: step.detail,
      });
    }
    try {
      await this.writer.remove(step.alertId);
    } catch (error) {
      const why = `delete of alert ${step.alertId} (${step.owner}) failed: ${message(error)}`;
      this.fail(entry, step.owner, step.name, why);
      return;
    }
    this.snapshot.remove(step.alertId);
    this.outcome(entry, {
      action: step.action,
      owner: step.owner,
      name: step.name,
      alertId: step.alertId,
      detail: step.detail,
    });
  }

  /** POST once (create-once: a lost answer is looked for in a re-list before another POST). */
  private async create(
    entry: Entry,
    step: Extract<AlertStep, { kind: 'create' }>,
    attempts: ReadonlyMap<string, { attempts: number }> | undefined,
    planned: string | null,
  ): Promise<void> {
    const d = step.desired;
    const before = attempts?.get(d.id)?.attempts ?? 0;
    let posts = 0;
    try {
      const made = await this.writer.create(d.id, step.body, {
        attempts: Math.max(1, this.c.maxRounds - before),
        beforePost: async () => {
          // The first POST was checked with the other writes; a repeat is checked again.
          if (posts > 0 && planned !== null) await this.checkNotOvertaken(entry, planned);
          posts += 1;
          entry.result.writes += 1;
        },
        onUnknown: (error) => {
          entry.unsure.set(d.id, describe(d));
          entry.log.warn('alert create outcome unknown; re-listing', {
            owner: d.id,
            error: message(error),
          });
        },
      });
      // Found, or answered without a POST made again: nothing of ours is still on its way.
      if (made.resent === 0) entry.unsure.delete(d.id);
      this.snapshot.put(made.value);
      this.outcome(entry, {
        action: 'created',
        owner: d.id,
        name: d.body.name,
        alertId: made.value.id,
        ...(made.via === 'list' ? { detail: 'confirmed by re-list' } : {}),
      });
      entry.pending.set(d.id, { desired: d, attempts: before + posts });
    } catch (error) {
      if (error instanceof Overtaken || this.signal?.aborted) throw error;
      const why =
        error instanceof CreateNotConfirmedError
          ? notConfirmed(d, this.c)
          : `${describe(d)}: create failed: ${message(error)}`;
      this.fail(entry, d.id, d.body.name, why);
    }
  }

  /** Called before every POST, PUT and DELETE. */
  private async checkNotOvertaken(entry: Entry, planned: string): Promise<void> {
    const newest = await this.c.versions.get(entry.key);
    if (newest !== undefined && compareVersions(newest, planned) > 0) {
      throw new Overtaken(`overtaken by event ${newest}`, { newest });
    }
  }

  private overtake(entry: Entry, newest: string): void {
    // The newer event owns the alerts now; what this one left undone is not wanted anymore.
    entry.log.warn('a newer event claimed these alerts while this one was applied; stopped', {
      version: entry.desired.version,
      newest,
    });
    entry.overtaken = newest;
    // A create whose answer was lost may still land after the newer event listed: `unsure`
    // fails the event, so the redelivery (stale by then) removes it if the newer declaration
    // lacks it.
    entry.pending.clear();
    const done = new Set(entry.result.outcomes.map((o) => o.owner));
    for (const d of entry.desired.alerts) {
      if (!done.has(d.id))
        this.outcome(entry, stale(d, `newer event ${newest} arrived during apply`));
    }
  }

  private outcome(entry: Entry, o: AlertOutcome): void {
    entry.result.outcomes.push(o);
    if (o.action !== 'unchanged') entry.log.info(`alert ${o.action}`, { ...o });
  }

  private fail(entry: Entry, owner: string, name: string, reason: string): void {
    entry.result.errors.push(reason);
    this.outcome(entry, { action: 'failed', owner, name, detail: reason });
  }
}

function refuseFuture(event: AlertEvent, label: string, version: string, limit: number): void {
  if (versionMillis(version) <= limit) return;
  const field = event['detail-type'] === 'Dashboard Synced' ? 'detail.syncedAt' : 'time';
  const why = `${field}: ${version} is in the future (clock skew?); refused so it cannot outrank later events`;
  throw new ValidationError(`${label}: ${why}`, { source: label, issues: [why] });
}

function stale(d: DesiredAlert, detail: string): AlertOutcome {
  return { action: 'stale', owner: d.id, name: d.body.name, detail };
}

function notConfirmed(d: DesiredAlert, c: Pick<Config, 'maxRounds'>): string {
  return `${describe(d)}: create not confirmed after ${c.maxRounds} attempts`;
}

function describe(d: DesiredAlert): string {
  const o = d.owner;
  if (o.kind === 'dashboard')
    return `alert "${o.alertName}" on tile "${o.tileName}" of dashboard "${o.dashboardKey}"`;
  if (o.kind === 'search') return `alert "${o.alertName}" on saved search "${o.searchKey}"`;
  return `alert "${d.body.name}" requested with key "${o.key}"`;
}

function message(error: unknown): string {
  return redactText(error instanceof Error ? error.message : String(error));
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new CloudOpsError(String(error), { cause: error });
}
