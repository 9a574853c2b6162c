/**
 * Reconciles the service's alerts with one event (DESIGN.md "Events"), idempotently although
 * the create API has no idempotency: every alert cloudops writes carries an ownership marker
 * (marker.ts), and before and after creating, cloudops lists alerts and matches markers.
 *
 * Races between instances (EventBridge -> SQS delivers at least once, Lambda runs copies in
 * parallel) are settled without coordination: after its creates every writer re-lists, and of
 * several alerts with one owner the oldest (createdAt, then id) is kept, with the newest
 * content among the copies; the others are deleted. Every writer picks the same survivor, so
 * the copies converge on exactly one alert. Within one process a keyed mutex also serializes
 * work per owner, so concurrent copies there never even race.
 *
 * Order between events of one owner comes from the version store (versions.ts): an event
 * first claims its version, and only then writes. Claiming before applying keeps "nothing
 * lost on a crash": a retry of the same event finds its own version stored ("current") and
 * applies again, while any older event is refused from then on, even if every later event
 * changed nothing. Before each write the store is read again, so an event overtaken while
 * it works stops instead of overwriting what the newer one provisions.
 */
import { ApiError, isNotFound, TransportError, type ObservabilityBackend } from '../api';
import { CloudOpsError, ValidationError } from '../errors';
import type { AlertEvent } from '../events/schemas';
import { silentLogger, type Logger } from '../log';
import { redactText } from '../redact';
import type { Alert, CreateAlertBody } from '../schemas';
import { bodyOfAlert, diffFields, fieldsOfAlert, fieldsOfBody } from './compare';
import { desiredFromEvent, versionOwner, type DesiredAlert, type DesiredSet } from './desired';
import { compareVersions, ownerId, parseMarker, withMarker, type Marker } from './marker';
import { KeyedMutex } from './mutex';
import { claimVersion, MemoryVersionStore, versionMillis, type VersionStore } from './versions';

export type AlertAction =
  'created' | 'updated' | 'unchanged' | 'deleted' | 'duplicate-removed' | 'stale' | 'failed';

export interface AlertOutcome {
  action: AlertAction;
  /** ownerId of the declaration (marker identity). */
  owner: string;
  name: string;
  alertId?: string;
  /** Changed fields, the reason for a failure, or why nothing was written. */
  detail?: string;
}

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
  constructor(readonly result: ProvisionResult) {
    super(`${result.event}: ${result.errors.join('; ')}`);
  }
}

export interface AlertProvisionerOptions {
  backend: ObservabilityBackend;
  logger?: Logger;
  /** Share one per process so every provisioner serializes on the same owners. */
  mutex?: KeyedMutex;
  /** Create -> re-list rounds before an unconfirmed create is reported. @default 4 */
  maxCreateRounds?: number;
  /**
   * The newest version seen per owner (DynamoDB in the function, a file in the CLI).
   * @default a process-local MemoryVersionStore (orders events within this process only)
   */
  versions?: VersionStore;
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
}

export interface AlertProvisioner {
  provision(event: AlertEvent, options?: ProvisionOptions): Promise<ProvisionResult>;
}

interface Owned {
  alert: Alert;
  marker: Marker;
}

export function createAlertProvisioner(options: AlertProvisionerOptions): AlertProvisioner {
  const mutex = options.mutex ?? new KeyedMutex();
  const versions = options.versions ?? new MemoryVersionStore();
  const log = options.logger ?? silentLogger;
  const maxRounds = options.maxCreateRounds ?? 4;
  const maxSkew = options.maxClockSkewMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  return {
    provision(event, opts = {}) {
      const owner = versionOwner(event);
      const key = options.versionScope ? `${options.versionScope}#${owner}` : owner;
      const label = `${event['detail-type']} event ${opts.ref ?? event.id ?? '(no id)'}`;
      const eventLog = log.child({ event: label });
      return mutex.run(owner, async () => {
        const desired = desiredFromEvent(event);
        refuseFuture(event, label, desired.version, now() + maxSkew);
        const claim = await claimVersion(versions, key, desired.version);
        if (claim.status === 'stale') {
          eventLog.info('older than the newest event seen; skipped', {
            version: desired.version,
            newest: claim.newest,
          });
          return staleResult(label, desired, `newer event ${claim.newest} already seen`);
        }
        const overtaken = async () => {
          const newest = await versions.get(key);
          return newest !== undefined && compareVersions(newest, desired.version) > 0
            ? newest
            : undefined;
        };
        return reconcile(
          desired,
          label,
          options.backend,
          eventLog,
          maxRounds,
          opts.signal,
          overtaken,
        );
      });
    },
  };
}

function refuseFuture(event: AlertEvent, label: string, version: string, limit: number): void {
  if (versionMillis(version) <= limit) return;
  const field = event['detail-type'] === 'Dashboard Synced' ? 'detail.syncedAt' : 'time';
  const why = `${field}: ${version} is in the future (clock skew?); refused so it cannot outrank later events`;
  throw new ValidationError(`${label}: ${why}`, label, [why]);
}

function staleResult(label: string, desired: DesiredSet, detail: string): ProvisionResult {
  return {
    event: label,
    version: desired.version,
    outcomes: desired.alerts.map((d) => ({
      action: 'stale' as const,
      owner: d.id,
      name: d.body.name,
      detail,
    })),
    errors: [],
    writes: 0,
  };
}

/** Thrown before a write when a newer event claimed the owner meanwhile: stop, write nothing more. */
class Overtaken extends Error {
  constructor(readonly newest: string) {
    super(`overtaken by event ${newest}`);
  }
}

async function reconcile(
  desired: DesiredSet,
  label: string,
  backend: ObservabilityBackend,
  log: Logger,
  maxRounds: number,
  signal: AbortSignal | undefined,
  overtaken: () => Promise<string | undefined>,
): Promise<ProvisionResult> {
  const version = desired.version;
  const result: ProvisionResult = { event: label, version, outcomes: [], errors: [], writes: 0 };
  const call = { signal };
  const outcome = (o: AlertOutcome) => {
    result.outcomes.push(o);
    if (o.action !== 'unchanged') log.info(`alert ${o.action}`, { ...o });
  };
  const fail = (owner: string, name: string, reason: string) => {
    result.errors.push(reason);
    outcome({ action: 'failed', owner, name, detail: reason });
  };

  try {
    await apply();
  } catch (error) {
    if (!(error instanceof Overtaken)) throw error;
    // The newer event owns the alerts now; what this one left undone is not wanted anymore.
    log.warn('a newer event claimed these alerts while this one was applied; stopped', {
      version,
      newest: error.newest,
    });
    const done = new Set(result.outcomes.map((o) => o.owner));
    for (const d of desired.alerts) {
      if (done.has(d.id)) continue;
      outcome({
        action: 'stale',
        owner: d.id,
        name: d.body.name,
        detail: `newer event ${error.newest} arrived during apply`,
      });
    }
    return result;
  }
  if (result.errors.length > 0) throw new AlertProvisionError(result);
  return result;

  /** Called before every POST, PUT and DELETE. */
  async function checkNotOvertaken(): Promise<void> {
    const newest = await overtaken();
    if (newest !== undefined) throw new Overtaken(newest);
  }

  async function apply(): Promise<void> {
    let marked = ownedAlerts(await backend.listAlerts(call));

    if (desired.dashboardKey !== undefined) {
      const key = desired.dashboardKey;
      const mine = marked.filter(
        (m) => m.marker.owner.kind === 'dashboard' && m.marker.owner.dashboardKey === key,
      );
      // A dashboard event is a snapshot: one older than what a newer snapshot wrote is stale.
      const newest = mine.reduce<string | undefined>(
        (max, m) =>
          max === undefined || compareVersions(m.marker.version, max) > 0 ? m.marker.version : max,
        undefined,
      );
      if (newest !== undefined && compareVersions(version, newest) < 0) {
        for (const d of desired.alerts) {
          outcome({
            action: 'stale',
            owner: d.id,
            name: d.body.name,
            detail: `newer sync ${newest} already applied`,
          });
        }
        return;
      }
      for (const b of desired.blocked) fail(b.id, b.name, b.reason);
      const wanted = new Set([
        ...desired.alerts.map((a) => a.id),
        ...desired.blocked.map((b) => b.id),
      ]);
      for (const m of mine) {
        if (wanted.has(ownerId(m.marker.owner))) continue;
        await remove(m, 'deleted', 'declaration or tile removed');
      }
    }

    // Existing owners: settle (dedupe, update when different). Missing: create below.
    let pending: DesiredAlert[] = [];
    for (const d of desired.alerts) {
      const owned = ownedBy(marked, d.id);
      if (owned.length === 0) pending.push(d);
      else await settle(d, owned);
    }

    for (let round = 1; pending.length > 0; round += 1) {
      signal?.throwIfAborted();
      if (round > maxRounds) {
        for (const d of pending) {
          fail(
            d.id,
            d.body.name,
            `${describe(d)}: create not confirmed after ${maxRounds} attempts`,
          );
        }
        break;
      }
      const attempted: DesiredAlert[] = [];
      const unconfirmed = new Set<DesiredAlert>();
      for (const d of pending) {
        await checkNotOvertaken();
        try {
          result.writes += 1;
          const created = await backend.createAlert(withOwnerMarker(d), call);
          outcome({ action: 'created', owner: d.id, name: d.body.name, alertId: created.id });
          attempted.push(d);
        } catch (error) {
          if (isDefinite(error)) {
            fail(d.id, d.body.name, `${describe(d)}: create failed: ${message(error)}`);
          } else {
            // It may have been applied (5xx, reset, truncated answer): the re-list will tell.
            log.warn('alert create outcome unknown; re-listing', {
              owner: d.id,
              error: message(error),
            });
            attempted.push(d);
            unconfirmed.add(d);
          }
        }
      }
      if (attempted.length === 0) break;
      // Re-list after creating: finds creates whose answer was lost and duplicates from racers.
      marked = ownedAlerts(await backend.listAlerts(call));
      pending = [];
      for (const d of attempted) {
        const owned = ownedBy(marked, d.id);
        if (owned.length === 0) {
          pending.push(d);
          continue;
        }
        if (unconfirmed.has(d)) {
          const alertId = owned[0].alert.id;
          outcome({
            action: 'created',
            owner: d.id,
            name: d.body.name,
            alertId,
            detail: 'confirmed by re-list',
          });
        }
        await settle(d, owned, true);
      }
    }
  }

  function withOwnerMarker(d: DesiredAlert): CreateAlertBody {
    return { ...d.body, message: withMarker(d.body.message, { owner: d.owner, version }) };
  }

  /** Keeps the oldest copy with the newest content; deletes the other copies. */
  async function settle(d: DesiredAlert, owned: Owned[], justCreated = false): Promise<void> {
    const [winner, ...duplicates] = owned as [Owned, ...Owned[]];
    let target: { version: string; body: CreateAlertBody; from?: string } = {
      version,
      body: d.body,
    };
    for (const o of owned) {
      const body =
        compareVersions(o.marker.version, target.version) > 0 ? bodyOfAlert(o.alert) : undefined;
      if (body) target = { version: o.marker.version, body, from: o.alert.id };
    }
    const current = fieldsOfAlert(winner.alert);
    const changed = diffFields(current, fieldsOfBody(target.body));
    const markerStale = compareVersions(winner.marker.version, target.version) < 0;
    if (changed.length > 0) {
      await checkNotOvertaken();
      try {
        result.writes += 1;
        const body = {
          ...target.body,
          message: withMarker(target.body.message, { owner: d.owner, version: target.version }),
        };
        await backend.updateAlert(winner.alert.id, body, call);
        outcome({
          action: 'updated',
          owner: d.id,
          name: d.body.name,
          alertId: winner.alert.id,
          detail: `${changed.join(', ')}${target.from ? ` (from newer copy ${target.from})` : ''}`,
        });
      } catch (error) {
        fail(
          d.id,
          d.body.name,
          `${describe(d)}: update of alert ${winner.alert.id} failed: ${message(error)}`,
        );
        return;
      }
    } else if (!justCreated) {
      const differsFromEvent = diffFields(current, fieldsOfBody(d.body)).length > 0;
      outcome({
        action: differsFromEvent ? 'stale' : 'unchanged',
        owner: d.id,
        name: d.body.name,
        alertId: winner.alert.id,
        // Same content: the marker keeps its older version (no write just to bump it).
        ...(differsFromEvent
          ? { detail: `newer declaration ${winner.marker.version} already applied` }
          : {}),
        ...(!differsFromEvent && markerStale ? { detail: 'same content' } : {}),
      });
    }
    for (const dup of duplicates) {
      log.warn('duplicate alert found; removing', {
        owner: d.id,
        kept: winner.alert.id,
        removed: dup.alert.id,
      });
      await remove(dup, 'duplicate-removed', `duplicate of ${winner.alert.id}`);
    }
  }

  async function remove(m: Owned, action: 'deleted' | 'duplicate-removed', why: string) {
    const owner = ownerId(m.marker.owner);
    const name = m.alert.name ?? '';
    await checkNotOvertaken();
    try {
      result.writes += 1;
      await backend.deleteAlert(m.alert.id, call);
    } catch (error) {
      // Already gone (another instance removed it, or its tile was deleted): the goal holds.
      if (!isNotFound(error)) {
        fail(owner, name, `delete of alert ${m.alert.id} (${owner}) failed: ${message(error)}`);
        return;
      }
    }
    outcome({ action, owner, name, alertId: m.alert.id, detail: why });
  }
}

/** Alerts with a readable cloudops marker; hand-made ones (no marker) are never touched. */
function ownedAlerts(alerts: readonly Alert[]): Owned[] {
  const out: Owned[] = [];
  for (const alert of alerts) {
    const marker = parseMarker(alert.message);
    if (marker) out.push({ alert, marker });
  }
  return out;
}

/** The copies owned by one declaration, oldest first: every instance agrees on the order. */
function ownedBy(marked: readonly Owned[], id: string): Owned[] {
  return marked
    .filter((m) => ownerId(m.marker.owner) === id)
    .sort((a, b) => {
      const at = a.alert.createdAt ?? '';
      const bt = b.alert.createdAt ?? '';
      if (at !== bt) return at < bt ? -1 : 1;
      return a.alert.id < b.alert.id ? -1 : a.alert.id > b.alert.id ? 1 : 0;
    });
}

/** A create that surely did not happen: a 4xx other than 429, or a local validation error. */
function isDefinite(error: unknown): boolean {
  if (error instanceof ApiError)
    return error.status >= 400 && error.status < 500 && error.status !== 429;
  return !(error instanceof TransportError);
}

function describe(d: DesiredAlert): string {
  const o = d.owner;
  return o.kind === 'dashboard'
    ? `alert "${o.alertName}" on tile "${o.tileName}" of dashboard "${o.dashboardKey}"`
    : `alert "${d.body.name}" requested with key "${o.key}"`;
}

function message(error: unknown): string {
  return redactText(error instanceof Error ? error.message : String(error));
}
