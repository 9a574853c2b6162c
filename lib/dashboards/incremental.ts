/**
 * A run that reads only what changed (the deployed sync, with a manifest): list the files, read
 * the dashboard list once, then stream the files against it: a file whose dashboard the manifest
 * vouches for is not read, and a file read and found already in sync (planned alone against its
 * dashboard) is not kept. Only what moved, on either side, reaches the plan, which takes the
 * list already read (listedOnce), so a no-op costs that one request. Afterwards, what the run
 * saw in sync becomes the next manifest (manifest.ts says why that never hides a change).
 */
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import type { Dashboard } from '../schemas';
import type { DashboardResult } from './apply';
import {
  loadChangedFiles,
  type ChangedFiles,
  type ChangedFilesOptions,
  type Voucher,
} from './changed-files';
import type { DashboardSource } from './load';
import {
  DashboardIndex,
  nextManifest,
  printOf,
  vouchKnown,
  type Manifest,
  type SeenInSync,
} from './manifest';
import type { ObjectKind } from './objects-plan';
import { computePlan, type Plan } from './plan';
import { usesNames } from './resolve';
import type { DesiredDashboard } from './types';

/** The manifest side of a run: the last run's (if made in this context) and the context. */
export interface ManifestRun {
  readonly previous: Manifest | undefined;
  readonly context: string;
}

/** What a run plans, and what it learnt for the next manifest. */
export interface LoadedFiles extends ChangedFiles {
  /** With a manifest: the listed dashboards left to plan (the in-sync ones taken out). */
  rest?: Dashboard[];
}

export interface IncrementalOptions extends Omit<ChangedFilesOptions, 'lastRun' | 'voucher'> {
  readonly manifest?: ManifestRun;
  readonly owner: string;
  /** A version ledger vouches for declared alerts (see manifest.ts). */
  readonly alertsVouched: boolean;
}

/** Streams the files; with a manifest, against the dashboard list read first. */
export async function loadFiles(
  source: DashboardSource,
  backend: Pick<ObservabilityBackend, 'listDashboards'>,
  options: IncrementalOptions,
  call: CallOptions,
): Promise<LoadedFiles> {
  if (!options.manifest) return loadChangedFiles(source, options);
  let index: DashboardIndex | undefined;
  const previous = options.manifest.previous;
  const loaded = await loadChangedFiles(source, {
    ...options,
    ...(previous ? { lastRun: previous } : {}),
    voucher: async () => {
      index = new DashboardIndex(await backend.listDashboards(call), options.owner);
      return voucher(index, options);
    },
  });
  return { ...loaded, rest: index!.rest() };
}

function voucher(index: DashboardIndex, options: IncrementalOptions): Voucher {
  const planOptions = { owner: options.owner };
  return {
    known: (entry) => vouchKnown(entry, index, options.alertsVouched),
    parsed(want) {
      // Alerts need the ledger or the alert list, names the sources list: the plan does those.
      if (want.tiles.some((t) => t.alerts.length > 0) || usesNames([want])) return undefined;
      const mine = index.only(want.key);
      if (!mine) return undefined;
      const [change] = computePlan([want], [mine], planOptions).changes;
      if (change?.action !== 'unchanged' || change.alerts.length > 0) return undefined;
      index.vouched(want.key);
      return { id: mine.id, print: printOf(mine) };
    },
  };
}

/** The backend as the plan sees it: the list already read, and the prints of what it writes. */
export interface PlannedBackend {
  backend: ObservabilityBackend;
  /** Dashboard id -> print of the service's answer to its create or update. */
  written: Map<string, string>;
}

/**
 * The first listDashboards answers `listed` (the list loadFiles read, without the in-sync ones);
 * later ones (a create's re-list after a failure) ask the service.
 */
export function listedOnce(backend: ObservabilityBackend, listed: Dashboard[]): PlannedBackend {
  const written = new Map<string, string>();
  let first: Dashboard[] | undefined = listed;
  const record = (d: Dashboard) => {
    written.set(d.id, printOf(d));
    return d;
  };
  return {
    written,
    backend: {
      ...backend,
      listDashboards: (call) => {
        const answer = first;
        first = undefined;
        return answer ? Promise.resolve(answer) : backend.listDashboards(call);
      },
      createDashboard: async (body, call) => record(await backend.createDashboard(body, call)),
      updateDashboard: async (id, body, call) =>
        record(await backend.updateDashboard(id, body, call)),
    },
  };
}

/** What the run's plan and apply say about each dashboard key's alerts in the ledger. */
export interface AlertsSettlement {
  /** No ledger: alerts were listed and planned whenever a file declared them. */
  readonly ledger: boolean;
  /** Keys whose alerts the ledger had not settled when planning. */
  readonly unsettled: ReadonlySet<string>;
  /** Keys this run settled. */
  readonly settled: ReadonlySet<string>;
}

/**
 * The dashboards this run saw in sync with their files, by key: unchanged in the plan with no
 * alert change, or written by this apply with every alert done; with declared alerts, also
 * settled in the ledger (when one is used).
 */
export function seenInSync(
  plan: Plan,
  results: readonly DashboardResult[] | undefined,
  written: ReadonlyMap<string, string>,
  alerts: AlertsSettlement,
): Map<string, SeenInSync> {
  const seen = new Map<string, SeenInSync>();
  const byKey = new Map((results ?? []).map((r) => [r.key, r]));
  for (const c of plan.changes) {
    if (!c.key || !c.desired || !alertsSettled(c.key, c.desired, c.alerts.length > 0, alerts))
      continue;
    const result = byKey.get(c.key);
    if (c.action === 'unchanged' && c.alerts.length === 0 && c.seen) {
      if (!results || result?.status === 'unchanged')
        seen.set(c.key, { id: c.seen.id, print: printOf(c.seen) });
      continue;
    }
    if (!result?.id || !['created', 'updated', 'unchanged'].includes(result.status)) continue;
    if (!(result.alertResults ?? []).every((a) => a.status === 'done')) continue;
    const print =
      result.status === 'unchanged' && c.seen ? printOf(c.seen) : written.get(result.id);
    if (print) seen.set(c.key, { id: result.id, print });
  }
  return seen;
}

function alertsSettled(
  key: string,
  want: DesiredDashboard,
  alertsChanged: boolean,
  alerts: AlertsSettlement,
): boolean {
  const declares = want.tiles.some((t) => t.alerts.length > 0);
  if (!declares || !alerts.ledger || alerts.settled.has(key)) return true;
  return !alerts.unsettled.has(key) && !alertsChanged;
}

/** The manifest after this run (see nextManifest). */
export function manifestAfter(
  run: ManifestRun,
  loaded: LoadedFiles,
  seen: ReadonlyMap<string, SeenInSync>,
  kinds: readonly ObjectKind[] | undefined,
): Manifest {
  return nextManifest(run.context, loaded.inSync, loaded.planned, seen, kinds);
}
