/**
 * The alert planner: what one event asks for (desired) against the alerts the service holds
 * (observed) gives the writes to make. Pure: no I/O, no clock; provision.ts executes the plan.
 *
 * Rules:
 * - cloudops owns an alert by the marker in its message (marker.ts); hand-made alerts are
 *   never touched, except one with exactly a declaration's identity (same link and name)
 *   when no alert carries that declaration's marker: that is our alert whose marker was
 *   edited away, and it is re-adopted (its marker written back) rather than duplicated.
 * - Several alerts with one owner: the oldest (createdAt, then id) is kept, with the newest
 *   content among the copies; the others are deleted. Every instance picks the same one.
 * - A dashboard event is a snapshot of its dashboard's alerts: owned alerts it no longer
 *   declares are deleted, and it is stale if a newer snapshot already wrote a marker.
 * - A stale redelivery changes nothing the newest event wants: it removes duplicates, and
 *   (given the newest declaration) owned alerts of its dashboard that the newest declaration
 *   lacks, i.e. creates of a superseded event the service applied after the newest one listed.
 *   Never "older marker means orphan": an unchanged alert keeps its older marker.
 */
import type { Alert, CreateAlertBody } from '../schemas';
import { alertLinks, wireSource } from '../schemas';
import { bodyOfAlert, diffFields, fieldsOfAlert, fieldsOfBody } from './compare';
import { markedBody, type DesiredAlert, type DesiredSet } from './desired';
import { compareVersions, ownerId, parseMarker, type Marker } from './marker';
import { declaredOwnerHash } from './versions';

export type AlertAction =
  | 'created'
  | 'updated'
  | 'adopted'
  | 'unchanged'
  | 'deleted'
  | 'duplicate-removed'
  | 'stale'
  | 'failed';

export interface AlertOutcome {
  action: AlertAction;
  /** ownerId of the declaration (marker identity). */
  owner: string;
  name: string;
  alertId?: string;
  /** Changed fields, the reason for a failure, or why nothing was written. */
  detail?: string;
}

export type AlertStep =
  | { kind: 'create'; desired: DesiredAlert; body: CreateAlertBody }
  | {
      kind: 'update';
      desired: DesiredAlert;
      alertId: string;
      body: CreateAlertBody;
      /** What the outcome reports: changed fields, or why an unchanged alert is written. */
      detail: string;
      action: 'updated' | 'adopted';
    }
  | {
      kind: 'delete';
      alertId: string;
      owner: string;
      name: string;
      action: 'deleted' | 'duplicate-removed';
      detail: string;
    }
  /** No write: unchanged, stale, or a declaration that cannot be applied (failed). */
  | { kind: 'report'; outcome: AlertOutcome };

export interface PlanAlertsInput {
  desired: DesiredSet;
  /** Every alert the service holds (one list; marked and hand-made). */
  observed: readonly Alert[];
  /**
   * Settle only these owners (after a create, when the re-list confirms it): no orphan
   * deletes, no stale check, and no `unchanged` outcome for them.
   */
  only?: ReadonlySet<string>;
  /** Only remove duplicates (a redelivered event that is stale may still clean up its copies). */
  dedupeOnly?: boolean;
  /**
   * With dedupeOnly: the newest declaration of the event's owner (version store). Owned alerts
   * of the event's dashboard with a marker no newer than it that it does not declare are
   * deleted.
   */
  newest?: { version: string; owners: ReadonlySet<string> };
}

interface Owned {
  alert: Alert;
  marker: Marker;
}

export function planAlerts(input: PlanAlertsInput): AlertStep[] {
  const { desired, only } = input;
  const version = desired.version;
  const owned = ownedAlerts(input.observed);
  const steps: AlertStep[] = [];
  const report = (outcome: AlertOutcome) => steps.push({ kind: 'report', outcome });

  if (input.dedupeOnly) {
    const superseded = input.newest ? lateCreates(owned, desired, input.newest) : [];
    const gone = new Set(superseded.map((m) => ownerId(m.marker.owner)));
    for (const d of desired.alerts) {
      const copies = ownedBy(owned, d.id);
      if (copies.length > 1 && !gone.has(d.id)) steps.push(...settleCopies(d, copies));
    }
    for (const m of superseded) {
      steps.push({
        kind: 'delete',
        alertId: m.alert.id,
        owner: ownerId(m.marker.owner),
        name: m.alert.name ?? '',
        action: 'deleted',
        detail: `not declared by the newest event ${input.newest!.version} (created late by an older one)`,
      });
    }
    return steps;
  }

  if (desired.dashboardKey !== undefined && only === undefined) {
    const key = desired.dashboardKey;
    const mine = owned.filter(
      (m) => m.marker.owner.kind === 'dashboard' && m.marker.owner.dashboardKey === key,
    );
    const newest = newestVersion(mine);
    if (newest !== undefined && compareVersions(version, newest) < 0) {
      for (const d of desired.alerts) {
        report({
          action: 'stale',
          owner: d.id,
          name: d.body.name,
          detail: `newer sync ${newest} already applied`,
        });
      }
      return steps;
    }
    for (const b of desired.blocked) {
      report({ action: 'failed', owner: b.id, name: b.name, detail: b.reason });
    }
    const wanted = new Set([
      ...desired.alerts.map((a) => a.id),
      ...desired.blocked.map((b) => b.id),
    ]);
    for (const m of mine) {
      const owner = ownerId(m.marker.owner);
      if (wanted.has(owner)) continue;
      steps.push({
        kind: 'delete',
        alertId: m.alert.id,
        owner,
        name: m.alert.name ?? '',
        action: 'deleted',
        detail: 'declaration or tile removed',
      });
    }
  }

  const adopted = new Set<string>();
  for (const d of desired.alerts) {
    if (only !== undefined && !only.has(d.id)) continue;
    const copies = ownedBy(owned, d.id);
    if (copies.length > 0) {
      steps.push(...settle(d, copies, version, only !== undefined));
      continue;
    }
    const orphan = adoptable(input.observed, d, adopted);
    if (orphan) {
      adopted.add(orphan.id);
      const body = markedBody(d, version);
      const changed = diffFields(fieldsOfAlert(orphan), fieldsOfBody(d.body));
      steps.push({
        kind: 'update',
        desired: d,
        alertId: orphan.id,
        body,
        action: 'adopted',
        detail: `marker restored${changed.length > 0 ? `; ${changed.join(', ')}` : ''}`,
      });
      continue;
    }
    steps.push({ kind: 'create', desired: d, body: markedBody(d, version) });
  }
  return steps;
}

/**
 * Owned alerts of the event's dashboard that the newest declaration does not declare, written
 * by an event no newer than it (a later event's alerts are not the newest declaration's to judge).
 */
function lateCreates(
  owned: readonly Owned[],
  desired: DesiredSet,
  newest: { version: string; owners: ReadonlySet<string> },
): Owned[] {
  const key = desired.dashboardKey;
  if (key === undefined) return []; // a request owns one alert: its newest declares it too
  return owned
    .filter(
      (m) =>
        m.marker.owner.kind === 'dashboard' &&
        m.marker.owner.dashboardKey === key &&
        compareVersions(m.marker.version, newest.version) <= 0 &&
        !newest.owners.has(declaredOwnerHash(ownerId(m.marker.owner))),
    )
    .sort((a, b) => byAge(a.alert, b.alert));
}

/** The kept copy gets the newest content of all copies; the younger copies are deleted. */
function settle(
  d: DesiredAlert,
  owned: Owned[],
  version: string,
  confirming: boolean,
): AlertStep[] {
  const [winner, ...copies] = owned as [Owned, ...Owned[]];
  let target: { version: string; body: CreateAlertBody; from?: string } = { version, body: d.body };
  for (const o of owned) {
    if (compareVersions(o.marker.version, target.version) <= 0) continue;
    const body = bodyOfAlert(o.alert);
    if (body) target = { version: o.marker.version, body, from: o.alert.id };
  }
  const steps: AlertStep[] = [];
  const current = fieldsOfAlert(winner.alert);
  const changed = diffFields(current, fieldsOfBody(target.body));
  if (changed.length > 0) {
    steps.push({
      kind: 'update',
      desired: d,
      alertId: winner.alert.id,
      body: markedBody(d, target.version, target.body),
      action: 'updated',
      detail: `${changed.join(', ')}${target.from ? ` (from newer copy ${target.from})` : ''}`,
    });
  } else if (!confirming) {
    const differsFromEvent = diffFields(current, fieldsOfBody(d.body)).length > 0;
    const markerStale = compareVersions(winner.marker.version, target.version) < 0;
    steps.push({
      kind: 'report',
      outcome: {
        action: differsFromEvent ? 'stale' : 'unchanged',
        owner: d.id,
        name: d.body.name,
        alertId: winner.alert.id,
        // Same content: the marker keeps its older version (no write just to bump it).
        ...(differsFromEvent
          ? { detail: `newer declaration ${winner.marker.version} already applied` }
          : markerStale
            ? { detail: 'same content' }
            : {}),
      },
    });
  }
  steps.push(...duplicateDeletes(d, winner, copies));
  return steps;
}

/**
 * Copies only, whatever the event says (it is stale): the kept copy takes the content of the
 * copy with the newest marker, the others are deleted.
 */
function settleCopies(d: DesiredAlert, owned: Owned[]): AlertStep[] {
  const [winner, ...copies] = owned as [Owned, ...Owned[]];
  let newest = winner;
  for (const o of copies) {
    if (compareVersions(o.marker.version, newest.marker.version) > 0) newest = o;
  }
  const steps: AlertStep[] = [];
  const body = newest === winner ? undefined : bodyOfAlert(newest.alert);
  const changed = body ? diffFields(fieldsOfAlert(winner.alert), fieldsOfBody(body)) : [];
  if (body && changed.length > 0) {
    steps.push({
      kind: 'update',
      desired: d,
      alertId: winner.alert.id,
      body: markedBody(d, newest.marker.version, body),
      action: 'updated',
      detail: `${changed.join(', ')} (from newer copy ${newest.alert.id})`,
    });
  }
  steps.push(...duplicateDeletes(d, winner, copies));
  return steps;
}

function duplicateDeletes(d: DesiredAlert, winner: Owned, copies: readonly Owned[]): AlertStep[] {
  return copies.map((dup) => ({
    kind: 'delete' as const,
    alertId: dup.alert.id,
    owner: d.id,
    name: dup.alert.name ?? d.body.name,
    action: 'duplicate-removed' as const,
    detail: `duplicate of ${winner.alert.id}`,
  }));
}

/**
 * An alert without a readable marker that has the declaration's identity: the same source,
 * link (dashboard + tile, or saved search) and name. Oldest first, so every instance adopts the
 * same one; at most one per declaration.
 */
function adoptable(
  observed: readonly Alert[],
  d: DesiredAlert,
  taken: ReadonlySet<string>,
): Alert | undefined {
  const want = fieldsOfBody(d.body);
  const candidates = observed.filter((a) => {
    if (taken.has(a.id) || parseMarker(a.message)) return false;
    const links = alertLinks(a);
    if (wireSource(a.source ?? '') !== want.source || (a.name ?? '') !== want.name) return false;
    return want.source === 'tile'
      ? links.dashboardId === want.dashboardId && links.tileId === want.tileId
      : links.savedSearchId === want.savedSearchId;
  });
  return candidates.sort(byAge)[0];
}

function newestVersion(owned: readonly Owned[]): string | undefined {
  let newest: string | undefined;
  for (const m of owned) {
    if (newest === undefined || compareVersions(m.marker.version, newest) > 0)
      newest = m.marker.version;
  }
  return newest;
}

/** Alerts with a readable cloudops marker; hand-made ones (no marker) are not owned. */
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
    .sort((a, b) => byAge(a.alert, b.alert));
}

function byAge(a: Alert, b: Alert): number {
  const at = a.createdAt ?? '';
  const bt = b.createdAt ?? '';
  if (at !== bt) return at < bt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
