/**
 * Drift is heard, not only logged: in report mode the scheduled sync tells people when the
 * dashboards drift from their files (the plan in markdown), reminds while the drift lasts and
 * says when it is gone.
 *
 * lib/watch does it, so the rules are those of every watched condition: the deployment's
 * dashboards are one watched record (InSync or Drifted) moved by lib/watch's condition rules
 * (reminders, flap damping, recovery), claimed in the watch store (of two overlapping runs one
 * notifies) and delivered once through the notifiers (one that fails is retried next run).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import { safeInteger } from '../schemas/builders';
import { parseOrThrow } from '../format-issues';
import type { Logger } from '../log';
import {
  conditionPolicySchema,
  followCondition,
  tell,
  watchedCondition,
  type ConditionPolicy,
  type ConditionPolicyInput,
  type Outcome,
  type Told,
} from '../watch/condition';
import { pendingDeliveryOf } from '../watch/ledger';
import type { Notifier, NotifierClients } from '../watch/notifiers/types';
import { WatchRun } from '../watch/run';
import { watchFromEnv } from '../watch/settings';
import { recordIo, type WatchStore } from '../watch/store';
import {
  DASHBOARDS_NOTICES,
  driftDedupKey,
  type DashboardsNotice,
} from '../watch/subjects/dashboards';
import type { Plan } from './plan';
import { renderPlanMarkdown, summaryLine } from './render';

const IN_SYNC = 'InSync';
const DRIFTED = 'Drifted';
/** The plan in a notice is cut here: it is stored with pending notices (DynamoDB: 400 KB an item). */
const MARKDOWN_CHARS = 16_000;

/**
 * The drift record: `dashboards#<owner>` / `drift` in the watch store, where the sync kept it
 * when it posed as a pipe (the fields it had then are read and dropped).
 */
const driftRecord = z.lazy(() =>
  z.object({
    ...watchedCondition,
    pending: z._default(z.array(pendingDeliveryOf(DASHBOARDS_NOTICES.schema)), []),
    version: z.number().check(safeInteger(), z.nonnegative()),
  }),
);
type DriftRecord = z.output<typeof driftRecord>;

export interface DriftNoticeDeps {
  store: WatchStore;
  notifiers: readonly Notifier[];
  /** Reminder and flap settings (the watch settings every watcher shares). */
  policy?: ConditionPolicyInput;
  logger: Logger;
  now?: () => number;
  signal?: AbortSignal;
}

interface DriftNoticeResult {
  state: typeof IN_SYNC | typeof DRIFTED;
  /** Notices this run claimed (sent, or pending for the next run when a notifier failed). */
  notifications: DashboardsNotice[];
  /** Notifier failures (`notifier: message`); the notices stay pending. */
  errors: string[];
}

interface Where {
  owner: string;
  source: string;
  service?: string;
}

/** Tells one plan's drift (the number of notices claimed, and the notifiers that failed). */
export type DriftTeller = (
  plan: Plan,
  where: Where,
  run: { logger: Logger; signal?: AbortSignal },
) => Promise<{ notifications: number; errors: string[] }>;

export interface DriftTellerOptions {
  /** @default the process environment (read in lib/config.ts) */
  env?: Record<string, string | undefined>;
  /** The notifiers' secrets. */
  secretsManager?: SecretsManagerClient;
  /** The watch table's client. */
  dynamo?: DynamoDBClient;
  /** The notifiers' other AWS clients (SNS, EventBridge). */
  notify?: Omit<NotifierClients, 'secretsManager'>;
  now?: () => Date;
}

/**
 * Report mode's teller: the watch table, notifiers and policy from the watch variables the
 * stack sets (functions/sync-dashboards/report-handler.ts wires it; the repair entry never
 * loads lib/watch). Without a table or a notifier, undefined: drift is only logged.
 */
export function driftTellerFromEnv(options: DriftTellerOptions): DriftTeller | undefined {
  const watch = watchFromEnv(options.env, DASHBOARDS_NOTICES.render, {
    ...options.notify,
    ...(options.secretsManager ? { secretsManager: options.secretsManager } : {}),
    dynamo: options.dynamo ?? new DynamoDBClient({}),
  });
  if (!watch) return undefined;
  const now = options.now;
  return async (plan, where, run) => {
    const told = await noticeDrift(plan, where, {
      ...watch,
      ...(now ? { now: () => now().getTime() } : {}),
      logger: run.logger,
      ...(run.signal ? { signal: run.signal } : {}),
    });
    return { notifications: told.notifications.length, errors: told.errors };
  };
}

/**
 * Decides and delivers the drift notice of one plan. `owner` names the deployment, `source`
 * where the files are (shown in the notice).
 */
export async function noticeDrift(
  plan: Plan,
  where: Where,
  deps: DriftNoticeDeps,
): Promise<DriftNoticeResult> {
  const clock = deps.now ?? Date.now;
  const now = clock();
  const policy = parseOrThrow(conditionPolicySchema, deps.policy ?? {}, 'drift policy');
  const state = plan.pending ? DRIFTED : IN_SYNC;
  const io = recordIo(deps.store, driftRecord, `dashboards#${where.owner}`, 'drift');
  const previous = await io.reload();
  const { next, told } = decideDrift(previous, state, now, policy);
  const run = new WatchRun<string, DashboardsNotice>({
    notifiers: deps.notifiers,
    now: clock,
    logger: deps.logger,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const notices = told ? [driftNotice(told, plan, where, now)] : [];
  const claim = await run.claim({ previous, next, notices, io, where: where.owner, at: now });
  if (claim) run.deliver([claim]);
  await run.finish();
  const errors = run.failures.map((f) =>
    f.stage === 'notify' ? `${f.notifier}: ${f.message}` : `${f.stage}: ${f.message}`,
  );
  return { state, notifications: run.claimed, errors };
}

/** The first run records "in sync" silently; a drift is told from the first run on. */
function decideDrift(
  previous: DriftRecord | undefined,
  state: string,
  now: number,
  policy: ConditionPolicy,
): Outcome<DriftRecord> {
  const standing = state === DRIFTED ? 'warning' : 'healthy';
  if (previous) return followCondition(previous, { state, standing }, now, policy);
  const first: DriftRecord = {
    state,
    since: now,
    changes: [],
    flapping: false,
    pending: [],
    version: 0,
  };
  if (standing === 'healthy') return { next: first };
  const problem = { state, severity: 'warning', since: now } as const;
  return tell(
    { ...first, announced: { kind: 'transition', ...problem } },
    { kind: 'transition', from: IN_SYNC, to: state, ...problem },
    now,
  );
}

/** What is told, in the words of dashboards (and the plan while they differ). */
function driftNotice(told: Told, plan: Plan, where: Where, now: number): DashboardsNotice {
  const drifted = told.to === DRIFTED;
  const hours = ((now - told.since) / 3_600_000).toFixed(1);
  const message = !drifted
    ? `Dashboards of ${where.owner} are back in sync with ${where.source}`
    : told.kind === 'reminder'
      ? `Dashboards of ${where.owner} still differ from ${where.source} (${hours} h): ${summaryLine(plan)}`
      : `Dashboards of ${where.owner} drifted from ${where.source}: ${summaryLine(plan)}`;
  const markdown = drifted
    ? renderPlanMarkdown(plan, where.service ? { service: where.service } : {})
    : undefined;
  return {
    subject: 'dashboards',
    id: `dashboards/${where.owner}/drift/${told.kind}/${now}`,
    dedupKey: driftDedupKey(where.owner),
    resolves: told.kind === 'recovery',
    kind: told.kind,
    severity: told.severity,
    from: told.from,
    to: told.to,
    at: new Date(now).toISOString(),
    since: new Date(told.since).toISOString(),
    message,
    owner: where.owner,
    source: where.source,
    ...(markdown !== undefined
      ? {
          markdown:
            markdown.length > MARKDOWN_CHARS
              ? `${markdown.slice(0, MARKDOWN_CHARS)}\n… (plan cut; run \`cloudops dashboards plan\`)`
              : markdown,
        }
      : {}),
  };
}
