/** One sync, shared by the CLI and the Lambda: load + validate all files, plan, then apply if asked. */
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import type { Logger } from '../log';
import type { Webhook } from '../schemas';
import { applyPlan, type ApplyResult, type DashboardResult } from './apply';
import { dashboardFilesError, loadDashboards, type DashboardSource } from './load';
import { ALERTS_TAG } from './ownership';
import { locateIn } from './parse';
import {
  computePlan,
  planDashboards,
  tileIdentity,
  type DashboardChange,
  type Plan,
  type PlanOptions,
} from './plan';
import { orAbsent, resolveNames, type NameDirectory } from './resolve';
import type { DesiredDashboard, FileIssue, SourceFile } from './types';

export interface SyncOptions extends PlanOptions {
  readonly source: DashboardSource;
  readonly backend: ObservabilityBackend;
  /** `plan` never writes. */
  readonly mode: 'plan' | 'apply';
  readonly vars?: Readonly<Record<string, string>>;
  /** The service the backend targets: files whose `services` leave it out are skipped. */
  readonly service?: string;
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  readonly onResult?: (result: DashboardResult) => void;
  /**
   * The deployed path's way to skip the alert list: given the dashboards whose alerts could
   * be as last applied (same declarations, same tile ids), resolves true when every one of
   * them is (the alert version store's settled records). The list is then read only when a
   * dashboard is deleted, loses a tile, or has alerts that changed. Without it, the list is
   * read whenever a file declares alerts (planDashboards).
   */
  readonly alertsSettled?: (changes: readonly DashboardChange[]) => Promise<boolean>;
  /**
   * `declared`: every `webhookId` in the files is checked against the webhooks list.
   * `written`: only those of alerts this run creates or updates (an id an existing alert
   * already uses counts as known), so a run that writes no alert reads no webhook list.
   * @default 'declared'
   */
  readonly checkWebhookIds?: 'declared' | 'written';
  /** Apply mode: called with the plan after every check, just before the first write. */
  readonly beforeApply?: (plan: Plan) => Promise<void>;
}

export interface SyncOutcome {
  plan: Plan;
  /** Present in apply mode. */
  apply?: ApplyResult;
}

/** Throws DashboardFilesError (every problem in every file) before any write is made. */
export async function syncDashboards(options: SyncOptions): Promise<SyncOutcome> {
  const call = options.signal ? { signal: options.signal } : {};
  const written = options.checkWebhookIds === 'written';
  const webhooks = once(() => orAbsent(options.backend.listWebhooks?.(call)));
  const { desired, files } = written
    ? await loadResolvingNamesOnly(options, webhooks, call)
    : {
        // The backend is also the directory that resolves `source:` / `webhook:` names.
        desired: await loadDashboards(options.source, {
          vars: options.vars,
          service: options.service,
          directory: options.backend,
          call,
        }),
        files: [],
      };
  const plan = options.alertsSettled
    ? await planReadingAlertsWhenChanged(desired, options, options.alertsSettled, call)
    : await planDashboards(desired, options.backend, options, call);
  if (written) await checkWrittenWebhookIds(plan, files, webhooks, options.source.label);
  if (options.mode === 'plan') return { plan };
  await options.beforeApply?.(plan);
  const apply = await applyPlan(plan, options.backend, options);
  return { plan, apply };
}

/**
 * Validates every file, then resolves `source:` / `webhook:` names; a `webhookId` is left for
 * checkWrittenWebhookIds (the webhooks list is read here only when a file names a webhook).
 */
async function loadResolvingNamesOnly(
  options: SyncOptions,
  webhooks: () => Promise<Webhook[] | undefined>,
  call: CallOptions,
): Promise<{ desired: DesiredDashboard[]; files: SourceFile[] }> {
  const texts = new Map<string, string>();
  const source: DashboardSource = {
    label: options.source.label,
    list: () => options.source.list(),
    read: async (file) => {
      const text = await options.source.read(file);
      texts.set(file, text);
      return text;
    },
    ...(options.source.size ? { size: (file: string) => options.source.size!(file) } : {}),
  };
  const valid = await loadDashboards(source, { vars: options.vars, service: options.service });
  const files = [...texts].map(([file, text]) => ({ file, text }));
  const named = valid.some((d) =>
    d.tiles.some((t) => t.alerts.some((a) => a.channel.webhook !== undefined)),
  );
  const { backend } = options;
  const directory: NameDirectory = {
    ...(backend.listSources ? { listSources: (c) => backend.listSources!(c) } : {}),
    // Without the list, webhook ids are skipped here (resolve.ts): they are checked after planning.
    ...(named ? { listWebhooks: async () => (await webhooks()) ?? [] } : {}),
  };
  const resolved = await resolveNames(valid, directory, files, call);
  if (resolved.issues.length > 0) throw dashboardFilesError(source.label, resolved.issues);
  return { desired: resolved.dashboards, files };
}

async function planReadingAlertsWhenChanged(
  desired: readonly DesiredDashboard[],
  options: SyncOptions,
  alertsSettled: NonNullable<SyncOptions['alertsSettled']>,
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
  if (!removes && (withAlerts.length === 0 || (await alertsSettled(withAlerts)))) return first;
  return computePlan(desired, actual, options, await options.backend.listAlerts(call));
}

/** Before any write: the webhook ids of the alerts this run creates or updates exist. */
async function checkWrittenWebhookIds(
  plan: Plan,
  files: readonly SourceFile[],
  webhooks: () => Promise<Webhook[] | undefined>,
  label: string,
): Promise<void> {
  const inUse = new Set(
    plan.changes.flatMap((c) => (c.seenAlerts ?? []).map((a) => a.channel?.webhookId)),
  );
  const wanted = plan.changes.flatMap((c) =>
    c.alerts
      .filter((a) => a.action !== 'delete' && a.want?.channel.webhookId !== undefined)
      .filter((a) => !inUse.has(a.want!.channel.webhookId))
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
      ...(text !== undefined && ai >= 0 ? locateIn(text, path) : {}),
      path: `tiles[${ti}].alerts[${ai}].channel.webhookId`,
      message: `webhook id "${id}" not found; the service has ${list.length} webhook(s)${
        list.length > 0 ? `: ${list.map((w) => `"${w.name ?? ''}" (${w.id})`).join(', ')}` : ''
      }`,
    });
  }
  if (issues.length > 0) throw dashboardFilesError(label, issues);
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
}
