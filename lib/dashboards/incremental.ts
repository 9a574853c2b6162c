/**
 * A run that reads only what changed (the deployed sync, with a manifest): stream the changed
 * files, read the dashboard list once, drop the dashboards the manifest vouches for, read the
 * files of those it cannot (drift on the service), and plan the rest. The list read here is the
 * list the plan uses (listedOnce), so a no-op costs that one request. Afterwards, what the run
 * saw in sync becomes the next manifest (manifest.ts says why that never hides a change).
 */
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import type { Dashboard } from '../schemas';
import type { DashboardResult } from './apply';
import {
  loadChangedFiles,
  loadKnownFiles,
  type ChangedFiles,
  type ChangedFilesOptions,
} from './changed-files';
import type { DashboardSource } from './load';
import {
  matchManifest,
  nextManifest,
  printOf,
  type KnownFile,
  type Manifest,
  type SeenInSync,
} from './manifest';
import type { Plan } from './plan';

/** The manifest side of a run: the last run's (already checked for this context) and the context. */
export interface ManifestRun {
  readonly previous: Manifest | undefined;
  readonly context: string;
}

/** What a run plans, and what it learnt for the next manifest. */
export interface LoadedFiles extends Omit<ChangedFiles, 'known'> {
  /** With a manifest: files vouched in sync (not planned). */
  inSync: KnownFile[];
  /** With a manifest: the listed dashboards left to plan (the in-sync ones removed). */
  rest?: Dashboard[];
}

export interface IncrementalOptions extends Omit<ChangedFilesOptions, 'lastRun'> {
  readonly manifest?: ManifestRun;
  readonly owner: string;
  /** A version ledger vouches for declared alerts (see manifest.ts). */
  readonly alertsVouched: boolean;
}

/** Streams the files; with a manifest, also reads the dashboard list and sorts out the in-sync. */
export async function loadFiles(
  source: DashboardSource,
  backend: Pick<ObservabilityBackend, 'listDashboards'>,
  options: IncrementalOptions,
  call: CallOptions,
): Promise<LoadedFiles> {
  const previous = options.manifest?.previous;
  const { known, ...changed } = await loadChangedFiles(source, {
    ...options,
    ...(previous ? { lastRun: previous } : {}),
  });
  if (!options.manifest) return { ...changed, inSync: [] };
  const match = matchManifest(known, await backend.listDashboards(call), options.owner, options);
  if (match.suspects.length === 0) return { ...changed, inSync: match.inSync, rest: match.rest };
  const drifted = await loadKnownFiles(source, match.suspects, options);
  return {
    ...changed,
    desired: [...changed.desired, ...drifted.desired],
    texts: [...changed.texts, ...drifted.texts],
    read: [...changed.read, ...drifted.read],
    inSync: match.inSync,
    rest: match.rest,
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
  const settled = (key: string, declares: boolean, changedAlerts: boolean) =>
    !declares ||
    !alerts.ledger ||
    alerts.settled.has(key) ||
    (!alerts.unsettled.has(key) && !changedAlerts);
  const byKey = new Map((results ?? []).map((r) => [r.key, r]));
  for (const c of plan.changes) {
    if (!c.key || !c.desired) continue;
    const declares = c.desired.tiles.some((t) => t.alerts.length > 0);
    if (!settled(c.key, declares, c.alerts.length > 0)) continue;
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

/** The manifest after this run (see nextManifest). */
export function manifestAfter(
  run: ManifestRun,
  loaded: LoadedFiles,
  inSync: ReadonlyMap<string, SeenInSync>,
  source: DashboardSource,
): Manifest {
  return nextManifest(run.context, loaded.inSync, loaded.read, inSync, (f) => source.version?.(f));
}
