/** One sync, shared by the CLI and the Lambda: load + validate all files, plan, then apply if asked. */
import type { ObservabilityBackend } from '../api/observability-backend';
import type { Logger } from '../log';
import { applyPlan, type ApplyResult, type DashboardResult } from './apply';
import { loadDashboards, type DashboardSource } from './load';
import { planDashboards, type Plan, type PlanOptions } from './plan';

export interface SyncOptions extends PlanOptions {
  readonly source: DashboardSource;
  readonly backend: ObservabilityBackend;
  /** `plan` never writes. */
  readonly mode: 'plan' | 'apply';
  readonly vars?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  readonly onResult?: (result: DashboardResult) => void;
}

export interface SyncOutcome {
  plan: Plan;
  /** Present in apply mode. */
  apply?: ApplyResult;
}

/** Throws DashboardFilesError (every problem in every file) before any request is made. */
export async function syncDashboards(options: SyncOptions): Promise<SyncOutcome> {
  const call = options.signal ? { signal: options.signal } : {};
  // The backend is also the directory that resolves `source:` / `webhook:` names.
  const desired = await loadDashboards(options.source, {
    vars: options.vars,
    directory: options.backend,
    call,
  });
  const plan = await planDashboards(desired, options.backend, options, call);
  if (options.mode === 'plan') return { plan };
  const apply = await applyPlan(plan, options.backend, options);
  return { plan, apply };
}
