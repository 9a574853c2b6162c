/**
 * How many of each kind a plan or an apply touches: dashboards, the folder's webhooks and saved
 * searches, and alerts (on tiles and on saved searches). The plan's line and the apply's are
 * built here alike, each count naming its kind, so a run that only made a webhook says so:
 * "1 webhook created, 0 updated, 0 deleted, 2 dashboards unchanged".
 */
import type { ApplyResult } from './apply';
import type { Plan } from './plan';

const KINDS = ['dashboard', 'webhook', 'savedSearch', 'alert'] as const;
type TalliedKind = (typeof KINDS)[number];
/** Per kind, how many of each plan action or apply status; kinds and outcomes with none are left out. */
export type Tally = Partial<Record<TalliedKind, Record<string, number>>>;

const NOUN: Record<TalliedKind, readonly [one: string, many: string]> = {
  dashboard: ['dashboard', 'dashboards'],
  webhook: ['webhook', 'webhooks'],
  savedSearch: ['saved search', 'saved searches'],
  alert: ['alert', 'alerts'],
};

/** An alert written is counted in the words of the other kinds' statuses. */
const DONE = { create: 'created', update: 'updated', delete: 'deleted' } as const;

function add(tally: Tally, kind: TalliedKind, outcome: string, n = 1): void {
  if (n === 0) return;
  const counts = (tally[kind] ??= {});
  counts[outcome] = (counts[outcome] ?? 0) + n;
}

/** The plan by kind; `unread`: dashboards a manifest vouched in sync without reading them. */
export function planTally(plan: Plan, unread = 0): Tally {
  const tally: Tally = {};
  for (const c of plan.changes) add(tally, 'dashboard', c.action);
  add(tally, 'dashboard', 'unchanged', unread);
  for (const c of plan.objects ?? []) add(tally, c.kind, c.action);
  for (const [action, n] of Object.entries(plan.alertCounts)) add(tally, 'alert', action, n);
  return tally;
}

/** What an apply did, by kind; `unread` as in planTally (they were left unchanged). */
export function applyTally(result: ApplyResult, unread = 0): Tally {
  const tally: Tally = {};
  add(tally, 'dashboard', 'unchanged', unread);
  for (const r of [...result.results, ...(result.objects ?? [])]) {
    add(tally, 'kind' in r ? r.kind : 'dashboard', r.status);
    for (const a of r.alertResults ?? [])
      add(tally, 'alert', a.status === 'done' ? DONE[a.action] : a.status);
  }
  return tally;
}

/** An outcome, the word after its counts, and whether a 0 is said when no kind has it. */
export type TallyWords = readonly (readonly [outcome: string, word: string, always: boolean])[];

/** "1 dashboard created, 1 webhook created, 0 updated": per outcome, each kind that has some. */
export function tallyText(tally: Tally, words: TallyWords): string {
  const parts: string[] = [];
  for (const [outcome, word, always] of words) {
    const some = KINDS.flatMap((kind) => {
      const n = tally[kind]?.[outcome] ?? 0;
      return n > 0 ? [`${n} ${NOUN[kind][n === 1 ? 0 : 1]} ${word}`] : [];
    });
    parts.push(...(some.length > 0 ? some : always ? [`0 ${word}`] : []));
  }
  return parts.join(', ');
}
