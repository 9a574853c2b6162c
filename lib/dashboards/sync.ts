/**
 * The one dashboards orchestration, for the CLI and the Lambda alike. For one service: plan
 * (one dashboard list; the alert list only when alerts matter), then, when the caller goes on,
 * apply: dashboards one at a time, each followed by its tile alerts (written by lib/alerts),
 * with a stop point between two writes, and the `Dashboard Synced` events of what is in sync.
 * The folder's webhooks and saved searches (objects-sync.ts) are written before the dashboards,
 * their alerts and deletes after. The CLI loops it per service with its own prompt and
 * progress lines; the Lambda runs it for its service (syncStreamed: files streamed, plan without
 * the dry run, apply), and syncDashboards does the same for a whole folder read at once.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import type { TileAlertLedger } from '../alerts/ledger';
import type { DashboardSyncedEvent } from '../events/schemas';
import type { Logger } from '../log';
import type { Webhook } from '../schemas';
import { applyPlan, checkSavedPlan, type ApplyResult, type DashboardResult } from './apply';
import { dashboardSyncedEvents, plannedSyncedEvent } from './events';
import {
  listedOnce,
  loadFiles,
  manifestAfter,
  seenInSync,
  type LoadedFiles,
  type ManifestRun,
} from './incremental';
import { dashboardFilesError, loadFolder, type DashboardSource } from './load';
import type { Manifest } from './manifest';
import { ALERTS_TAG, DEFAULT_OWNER } from './ownership';
import { locateIn } from './parse';
import {
  computePlan,
  planDashboards,
  tileIdentity,
  type DashboardChange,
  type Plan,
  type PlanOptions,
} from './plan';
import { validateRemotely } from './remote-validate';
import { orAbsent, resolveNames, type NameDirectory } from './resolve';
import { AlertWriter } from '../alerts/write';
import { planCost } from './cost';
import type { ObjectResult } from './objects-apply';
import type { ObjectKind, ObjectPlan } from './objects-plan';
import {
  checkSavedObjects,
  listsOnce,
  objectsApply,
  planFolderObjects,
  refuseWebhooksInUse,
  type ListCache,
} from './objects-sync';
import { isFolderWebhookPlaceholder, withFolderWebhooks } from './folder-webhooks';
import { kindsAfter, kindsToList, type KindSeen } from './manifest';
import type {
  DesiredDashboard,
  DesiredWebhook,
  FileIssue,
  FolderObjects,
  SourceFile,
} from './types';

export interface ServiceSyncOptions extends PlanOptions {
  readonly backend: ObservabilityBackend;
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  /** The sync's time, carried by alert markers and events. @default the time apply starts */
  readonly now?: Date;
  /**
   * The deployed path: provision-alerts' version ledger. A dashboard whose event would ask for
   * what provision-alerts last settled (same declarations, same tile ids) needs no alert list,
   * so a no-op run costs one request; the sync claims before writing a dashboard's alerts and
   * records the ones it applied completely. Without it, the alert list is read whenever a
   * file declares alerts. An alert edited or deleted by hand is then seen only when its
   * declaration or tile changes.
   */
  readonly ledger?: TileAlertLedger;
  /**
   * Which dashboards get a `Dashboard Synced` event: `all` in sync, or only `changed` ones
   * (tiles or alerts written, or alerts the ledger has not settled), so a no-op drift run
   * sends provision-alerts nothing. @default 'all'
   */
  readonly events?: 'all' | 'changed';
  /**
   * Before any write, the service's dry-run validate judges every dashboard the plan creates
   * or updates (`--no-remote-validate` turns it off for offline use). @default true
   */
  readonly remoteValidate?: boolean;
  /** Where the files come from: places the service's refusals on their lines. */
  readonly files?: { readonly label: string; read(file: string): Promise<string> };
  /** The folder's webhooks and saved searches (planned and applied with the dashboards). */
  readonly objects?: FolderObjects;
  /**
   * The backend planning reads through, each list once (listsOnce): pass the one the files'
   * names were resolved with, so no list is read twice. @default listsOnce(backend)
   */
  readonly planningBackend?: ObservabilityBackend;
  /** With prune: the kinds beside dashboards listed although no file declares one. @default all */
  readonly pruneKinds?: readonly ObjectKind[];
}

export interface SyncHooks {
  /** Called after each dashboard (progress lines). */
  readonly onResult?: (result: DashboardResult) => void;
}

export interface AppliedSync {
  result: ApplyResult;
  /** One per dashboard in sync (see `events`), recorded in the ledger before they go out. */
  events: DashboardSyncedEvent[];
  /** Keys whose alerts this apply recorded settled in the ledger. */
  settled: ReadonlySet<string>;
}

/** One service's sync, planned; `apply` writes it (once). */
export interface ServiceSync {
  readonly plan: Plan;
  /** With a ledger: keys whose declared alerts it had not settled when planning. */
  readonly unsettled: ReadonlySet<string>;
  /** The kinds beside dashboards whose list the plan read. */
  readonly listed: ReadonlySet<ObjectKind>;
  apply(hooks?: SyncHooks): Promise<AppliedSync>;
}

/**
 * Plans one service's dashboards (one request in steady state), webhooks and saved searches;
 * then, unless `remoteValidate` is false, the service's dry run judges what the plan writes.
 */
export async function planServiceSync(
  desired: readonly DesiredDashboard[],
  options: ServiceSyncOptions,
): Promise<ServiceSync> {
  const sync = await planOffline(desired, options);
  // The service's own check, between the plan and the first write (remote-validate.ts).
  if (options.remoteValidate !== false) {
    const checked = await validateRemotely(sync.plan, options.backend, {
      label: options.files?.label ?? 'the dashboard files',
      ...(options.files ? { readFile: (f: string) => options.files!.read(f) } : {}),
      call: options.signal ? { signal: options.signal } : {},
    });
    if (checked.unavailable) {
      sync.plan.notes.push(checked.unavailable);
      options.logger?.warn('dashboard validation unavailable', { reason: checked.unavailable });
    }
  }
  return sync;
}

/** planServiceSync without the service's dry run. */
async function planOffline(
  desired: readonly DesiredDashboard[],
  options: ServiceSyncOptions,
): Promise<ServiceSync> {
  const call = options.signal ? { signal: options.signal } : {};
  // Each list once for the whole plan, whichever part needs it first.
  const lists = options.planningBackend ?? listsOnce(options.backend);
  const planning = { ...options, backend: lists };
  const owner = options.owner ?? DEFAULT_OWNER;
  const objects = await planFolderObjects(
    desired,
    {
      objects: options.objects,
      owner,
      prune: options.prune,
      adopt: options.adopt,
      // Without the folder's objects (a further service of the CLI's run) none are pruned here.
      ...(!options.objects
        ? { pruneKinds: [] }
        : options.pruneKinds
          ? { pruneKinds: options.pruneKinds }
          : {}),
      declaredDashboards: desired.length + (options.declaredUnread ?? 0),
      allowDeleteAll: options.allowDeleteAll,
    },
    lists,
    call,
  );
  // Dashboards whose alerts the ledger has not settled as declared (filled by the plan).
  const unsettled = new Set<string>();
  const plan = options.ledger
    ? await planWithLedger(objects.dashboards, planning, options.ledger, unsettled, call)
    : await planDashboards(objects.dashboards, lists, options, call);
  await refuseWebhooksInUse(plan, objects.changes, () => lists.listAlerts(call));
  addObjects(plan, objects, options.rateLimit);
  return serviceSync(plan, options, unsettled, objects.webhooks, objects.listed);
}

/** The webhooks and saved searches join the plan: its changes, notes, counts and cost. */
function addObjects(plan: Plan, objects: ObjectPlan, rateLimit: PlanOptions['rateLimit']): void {
  if (objects.changes.length === 0 && objects.notes.length === 0) return;
  plan.objects = objects.changes;
  plan.notes.push(...objects.notes);
  let writes = 0;
  for (const c of objects.changes) {
    if (c.action === 'create' || c.action === 'update' || c.action === 'delete') writes += 1;
    if (c.action === 'conflict') plan.counts.conflict += 1;
    for (const a of c.alerts) plan.alertCounts[a.action] += 1;
  }
  const alertWrites = Object.values(plan.alertCounts).reduce((n, k) => n + k, 0);
  plan.pending ||= writes + alertWrites > 0;
  plan.cost = planCost({ ...plan, objectWrites: writes }, rateLimit);
}

/**
 * A plan saved earlier (`plan --out`), checked against the service first: throws
 * StalePlanError, having written nothing, when anything it touches changed since. `webhooks`:
 * the ones it writes, their values read again and checked (saved-webhooks.ts).
 */
export async function savedServiceSync(
  plan: Plan,
  options: ServiceSyncOptions,
  webhooks: ReadonlyMap<string, DesiredWebhook> = new Map(),
): Promise<ServiceSync> {
  const call = options.signal ? { signal: options.signal } : {};
  await checkSavedObjects(plan, options.backend, call);
  await checkSavedPlan(plan, options.backend, call);
  return serviceSync(plan, options, new Set(), webhooks, new Set());
}

function serviceSync(
  plan: Plan,
  options: ServiceSyncOptions,
  unsettled: ReadonlySet<string>,
  webhooks: ReadonlyMap<string, DesiredWebhook>,
  listed: ReadonlySet<ObjectKind>,
): ServiceSync {
  return {
    plan,
    unsettled,
    listed,
    async apply(hooks = {}) {
      const now = options.now ?? new Date();
      const version = now.toISOString();
      const claimed = options.ledger
        ? await claimAlerts(plan, options.ledger, version)
        : new Set<string>();
      const call = options.signal ? { signal: options.signal } : {};
      const objects = objectsApply(
        plan,
        {
          backend: options.backend,
          call,
          owner: plan.owner,
          webhooks,
          attempts: 5,
          settleMs: 1000,
        },
        options.signal,
      );
      await objects.before();
      const result = await applyPlan(plan, options.backend, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
        ...(hooks.onResult ? { onResult: hooks.onResult } : {}),
        now: () => now,
      });
      const writer = new AlertWriter({
        backend: options.backend,
        relist: () => options.backend.listAlerts(call),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      withObjectResults(result, await objects.after(writer, version));
      // Stopped among the searches' alerts or the deletes, after the dashboards.
      if (options.signal?.aborted) result.interrupted = true;
      const events = dashboardSyncedEvents(result.results, now, {
        changedOnly: options.events === 'changed',
        alsoKeys: unsettled,
      });
      // Before the events go out, so provision-alerts finds them settled.
      const settled = options.ledger
        ? await settleApplied(options.ledger, events, result.results, claimed)
        : new Set<string>();
      return { result, events, settled };
    },
  };
}

/**
 * Before the sync writes a dashboard's alerts itself, it claims their version in
 * provision-alerts' store, as that function does before its writes: an older event still
 * queued or in flight then stops instead of undoing them.
 */
async function claimAlerts(
  plan: Plan,
  ledger: TileAlertLedger,
  version: string,
): Promise<Set<string>> {
  const claimed = new Set<string>();
  for (const c of plan.changes) {
    if (!c.key || c.alerts.length === 0) continue;
    if (await ledger.claim(c.key, version)) claimed.add(c.key);
  }
  return claimed;
}

/**
 * A dashboard whose alerts this run claimed and applied completely is recorded as settled.
 * Returns the keys it recorded.
 */
async function settleApplied(
  ledger: TileAlertLedger,
  events: readonly DashboardSyncedEvent[],
  results: readonly DashboardResult[],
  claimed: ReadonlySet<string>,
): Promise<Set<string>> {
  const settled = new Set<string>();
  const byKey = new Map(results.map((r) => [r.key, r]));
  for (const event of events) {
    const key = event.detail.dashboardKey;
    if (!claimed.has(key)) continue;
    if (byKey.get(key)?.alertResults?.every((a) => a.status === 'done')) {
      await ledger.settle(event);
      settled.add(key);
    }
  }
  return settled;
}

/**
 * The ledger's way to skip the alert list: it is read only when a dashboard is deleted, loses
 * a tile, or has alerts whose declarations or tiles changed since they were last settled.
 */
async function planWithLedger(
  desired: readonly DesiredDashboard[],
  options: ServiceSyncOptions,
  ledger: TileAlertLedger,
  unsettled: Set<string>,
  call: CallOptions,
): Promise<Plan> {
  const actual = await options.backend.listDashboards(call);
  const first = computePlan(desired, actual, options);
  // Deletes and removed tiles: the list names the alerts they kill, and finds keyed tiles.
  const removes = first.changes.some(
    (c) => c.action === 'delete' || c.tiles.some((t) => t.kind === 'removed'),
  );
  // A new dashboard has no alerts yet: its declared alerts are planned as creates anyway.
  const withAlerts = first.changes.filter(
    (c) =>
      (c.action === 'update' || c.action === 'unchanged') &&
      (c.desired?.tiles.some((t) => t.alerts.length > 0) || c.seen?.tags.includes(ALERTS_TAG)),
  );
  if (!removes) {
    await collectUnsettled(withAlerts, ledger, unsettled);
    if (unsettled.size === 0) return first;
  }
  return computePlan(desired, actual, options, await options.backend.listAlerts(call));
}

/** The keys of the dashboards whose would-be event is not settled in the ledger. */
async function collectUnsettled(
  changes: readonly DashboardChange[],
  ledger: TileAlertLedger,
  unsettled: Set<string>,
): Promise<void> {
  const CONCURRENCY = 8; // DynamoDB reads in flight
  const now = new Date();
  for (let i = 0; i < changes.length; i += CONCURRENCY) {
    await Promise.all(
      changes.slice(i, i + CONCURRENCY).map(async (change) => {
        const planned = plannedSyncedEvent(change, now);
        if (!planned || !(await ledger.settled(planned))) unsettled.add(change.key!);
      }),
    );
  }
}

export interface SyncOptions extends ServiceSyncOptions, SyncHooks {
  readonly source: DashboardSource;
  /** `plan` never writes. */
  readonly mode: 'plan' | 'apply';
  readonly vars?: Readonly<Record<string, string>>;
  /** The service the backend targets: files whose `services` leave it out are skipped. */
  readonly service?: string;
}

/** The deployed sync's run (syncStreamed). */
export interface StreamedSyncOptions extends SyncOptions {
  /**
   * The last run's manifest, so that only changed files are read and only dashboards that
   * moved are planned (incremental.ts); the outcome holds the next.
   */
  readonly manifest?: ManifestRun;
  /**
   * Where webhook files' `{ secret }` values are read, once per run before any write;
   * `${VARIABLE}`s are refused there.
   */
  readonly secretsClient?: () => SecretsManagerClient;
  /** With secretsClient: the only secrets a reference may name (the stack's grant). */
  readonly allowedSecrets?: readonly string[];
}

export interface SyncOutcome {
  plan: Plan;
  /** Present in apply mode. */
  apply?: ApplyResult;
  /** Apply mode: the `Dashboard Synced` events (see ServiceSyncOptions.events). */
  events?: DashboardSyncedEvent[];
  /**
   * syncStreamed: dashboard files listed, read, planned (not found in sync while streaming),
   * and vouched in sync (read or not).
   */
  files?: { listed: number; read: number; planned: number; inSync: number };
  /** With a manifest: the one to keep for the next run. */
  manifest?: Manifest;
}

/**
 * Load the whole folder, plan and (apply mode) apply the files of one service; every
 * `webhookId` in the files is checked against the webhooks list. Throws DashboardFilesError
 * (every problem in every file) before any write is made.
 */
export async function syncDashboards(options: SyncOptions): Promise<SyncOutcome> {
  const call = options.signal ? { signal: options.signal } : {};
  // Each list read once, by whichever part needs it first (names, objects, dashboards).
  const lists = listsOnce(options.backend);
  const folder = await loadFolder(options.source, {
    vars: options.vars,
    service: options.service,
    // The backend is also the directory that resolves `source:` / `webhook:` names.
    directory: lists,
    call,
  });
  const sync = await planServiceSync(folder.dashboards, {
    // `files` places the service's dry-run refusals on the files' lines (remote-validate.ts).
    files: options.source,
    ...options,
    objects: folder.objects,
    planningBackend: lists,
  });
  const applied = options.mode === 'apply' ? await sync.apply(options) : undefined;
  return {
    plan: sync.plan,
    ...(applied ? { apply: applied.result, events: applied.events } : {}),
  };
}

/**
 * The deployed sync's run: streams the files (with a manifest only the changed ones), plans
 * and (apply mode) applies them. Only the webhook ids of alerts this run creates or updates are
 * checked (an id an existing alert already uses counts as known), so a run that writes no
 * alert reads no webhook list. No dry run: the files were planned (and dry-run validated) by
 * the CLI before they reached S3; a dry run per dashboard would spend the key's rate before
 * the first write, and a run resumed at its deadline would spend it again. Throws
 * DashboardFilesError before any write is made.
 */
export async function syncStreamed(options: StreamedSyncOptions): Promise<SyncOutcome> {
  const call = options.signal ? { signal: options.signal } : {};
  const cache: ListCache = new Map();
  const lists = listsOnce(options.backend, cache);
  const webhooks = once(() => orAbsent(lists.listWebhooks?.(call)));
  const loaded = await loadResolvingNamesOnly(options, lists, webhooks, call);
  // With a manifest the dashboard list is read already: the plan takes it as it is.
  const planned = loaded.rest ? listedOnce(options.backend, loaded.rest) : undefined;
  const sync = await planOffline(loaded.desired, {
    ...options,
    ...(planned ? { backend: planned.backend } : {}),
    objects: loaded.objects,
    planningBackend: planned ? listsOnce(planned.backend, cache) : lists,
    // Files a manifest vouched in sync declare dashboards too (prune's empty-source guard).
    declaredUnread: loaded.inSync.filter((k) => !k.entry.elsewhere).length,
    // A kind no file declares is listed to prune it only if the last run left some.
    ...(options.manifest ? { pruneKinds: kindsToList(options.manifest.previous) } : {}),
  });
  await checkWrittenWebhookIds(sync.plan, loaded.texts, webhooks, options.source.label);
  const applied = options.mode === 'apply' ? await sync.apply(options) : undefined;
  return {
    plan: sync.plan,
    ...(applied ? { apply: applied.result, events: applied.events } : {}),
    ...runFiles(options, loaded, sync, applied, planned?.written),
  };
}

/** The files a run read, and (with a manifest) the manifest it leaves for the next run. */
function runFiles(
  options: StreamedSyncOptions,
  loaded: LoadedFiles,
  sync: ServiceSync,
  applied: AppliedSync | undefined,
  written: ReadonlyMap<string, string> = new Map(),
): Pick<SyncOutcome, 'files' | 'manifest'> {
  const files = {
    listed: loaded.listed,
    read: loaded.read,
    planned: loaded.planned.length,
    inSync: loaded.inSync.filter((k) => !k.entry.elsewhere).length,
  };
  if (!options.manifest) return { files };
  const inSync = seenInSync(sync.plan, applied?.result.results, written, {
    ledger: options.ledger !== undefined,
    unsettled: sync.unsettled,
    settled: applied?.settled ?? new Set(),
  });
  const kinds = kindsAfter(options.manifest.previous?.kinds, kindsSeen(loaded, sync, applied));
  return { files, manifest: manifestAfter(options.manifest, loaded, inSync, kinds) };
}

/** Per kind beside dashboards: declared, listed, and whether an owned one was left behind. */
function kindsSeen(
  loaded: LoadedFiles,
  sync: ServiceSync,
  applied: AppliedSync | undefined,
): Record<ObjectKind, KindSeen> {
  const deleted = new Set(
    (applied?.result.objects ?? []).flatMap((o) => (o.status === 'deleted' ? [o.id] : [])),
  );
  const seen = (kind: ObjectKind, declared: number): KindSeen => ({
    declared: declared > 0,
    listed: sync.listed.has(kind),
    left: (sync.plan.objects ?? []).some(
      (c) => c.kind === kind && c.action === 'delete' && !deleted.has(c.id),
    ),
  });
  return {
    webhook: seen('webhook', loaded.objects.webhooks.length),
    savedSearch: seen('savedSearch', loaded.objects.savedSearches.length),
  };
}

/**
 * Streams the files (with a manifest: only the changed ones and those whose dashboard moved),
 * then resolves `source:` / `webhook:` names; a `webhookId` is left for checkWrittenWebhookIds
 * (the webhooks list is read here only when a file names a webhook).
 */
async function loadResolvingNamesOnly(
  options: StreamedSyncOptions,
  lists: ObservabilityBackend,
  webhooks: () => Promise<Webhook[] | undefined>,
  call: CallOptions,
): Promise<LoadedFiles> {
  const loaded = await loadFiles(
    options.source,
    options.backend,
    {
      vars: options.vars,
      service: options.service,
      ...(options.signal ? { signal: options.signal } : {}),
      owner: options.owner ?? DEFAULT_OWNER,
      alertsVouched: options.ledger !== undefined,
      ...(options.manifest ? { manifest: options.manifest } : {}),
      ...(options.secretsClient ? { secretsClient: options.secretsClient } : {}),
      ...(options.allowedSecrets ? { allowedSecrets: options.allowedSecrets } : {}),
      // Variables sit in the function's environment: webhook values come from secrets only.
      webhookValues: 'secrets',
    },
    call,
  );
  const { objects } = loaded;
  const folderHooks = new Set(objects.webhooks.map((w) => w.name));
  const alerts = [
    ...loaded.desired.flatMap((d) => d.tiles.flatMap((t) => t.alerts)),
    ...objects.savedSearches.flatMap((s) => s.alerts),
  ];
  const named = alerts.some(
    (a) => a.channel.webhook !== undefined && !folderHooks.has(a.channel.webhook),
  );
  const directory: NameDirectory = {
    mode: lists.mode,
    ...(lists.listSources ? { listSources: (c) => lists.listSources!(c) } : {}),
    // Without the list, webhook ids are skipped here (resolve.ts): they are checked after planning.
    ...(named ? { listWebhooks: async () => (await webhooks()) ?? [] } : {}),
  };
  const resolved = await resolveNames(
    loaded.desired,
    withFolderWebhooks(directory, objects.webhooks),
    loaded.texts,
    call,
    objects.savedSearches,
  );
  if (resolved.issues.length > 0) throw dashboardFilesError(options.source.label, resolved.issues);
  return {
    ...loaded,
    desired: resolved.dashboards,
    objects: { ...objects, savedSearches: resolved.savedSearches },
  };
}

/** Before any write: the webhook ids of the alerts this run creates or updates exist. */
async function checkWrittenWebhookIds(
  plan: Plan,
  files: readonly SourceFile[],
  webhooks: () => Promise<Webhook[] | undefined>,
  label: string,
): Promise<void> {
  const inUse = new Set([
    ...plan.changes.flatMap((c) => (c.seenAlerts ?? []).map((a) => a.channel?.webhookId)),
    // The folder's own webhooks: planned (and written) with this run.
    ...(plan.objects ?? []).flatMap((c) => (c.kind === 'webhook' && c.id ? [c.id] : [])),
  ]);
  const wanted = plan.changes.flatMap((c) =>
    c.alerts
      .filter((a) => a.action !== 'delete' && a.want?.channel.webhookId !== undefined)
      .filter((a) => !inUse.has(a.want!.channel.webhookId))
      .filter((a) => !isFolderWebhookPlaceholder(a.want!.channel.webhookId!))
      .map((a) => ({ change: c, alert: a, id: a.want!.channel.webhookId! })),
  );
  if (wanted.length === 0) return;
  // No list on this service (the spec snapshot): the service checks the id at write.
  const list = await webhooks();
  if (!list) return;
  const known = new Set(list.map((w) => w.id));
  const texts = new Map(files.map((f) => [f.file, f.text]));
  const issues: FileIssue[] = [];
  for (const { change, alert, id } of wanted) {
    if (known.has(id)) continue;
    const tiles = change.desired?.tiles ?? [];
    const ti = tiles.findIndex((t) => tileIdentity(t) === alert.tileIdentity);
    const ai = ti < 0 ? -1 : tiles[ti].alerts.findIndex((a) => a.name === alert.name);
    const path = ['tiles', ti, 'alerts', ai, 'channel', 'webhookId'];
    const file = change.sourceFile ?? label;
    const text = texts.get(file);
    issues.push({
      file,
      ...(text !== undefined && ai >= 0 ? await locateIn(text, path) : {}),
      path: `tiles[${ti}].alerts[${ai}].channel.webhookId`,
      message: `webhook id "${id}" not found; the service has ${list.length} webhook(s)${
        list.length > 0 ? `: ${list.map((w) => `"${w.name ?? ''}" (${w.id})`).join(', ')}` : ''
      }`,
    });
  }
  if (issues.length > 0) throw dashboardFilesError(label, issues);
}

/** The webhooks' and saved searches' results join the apply's (and its `ok`). */
function withObjectResults(result: ApplyResult, objects: ObjectResult[]): void {
  if (objects.length === 0) return;
  result.objects = objects;
  const failed = objects.some(
    (o) =>
      o.status === 'failed' ||
      o.status === 'not applied' ||
      (o.alertResults ?? []).some((a) => a.status !== 'done'),
  );
  if (failed) result.ok = false;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
}
