/**
 * Draws plans and apply results: a field tree for people (like `cdk diff`: per dashboard the
 * changed fields old → new, tiles by name, alerts with their values), optionally coloured;
 * markdown for a pull-request comment; JSON for machines.
 */
import type { ApplyResult, DashboardResult } from './apply';
import { formatValue, type FieldChange } from '../diff';
import type { AlertChange } from '../alerts/tile-plan';
import type { AlertResult } from '../alerts/tile-apply';
import type { ObjectChange } from './objects-plan';
import type { DashboardChange, Plan, TileChange } from './plan';
import { costLine } from './cost';
import { applyTally, planTally, tallyText, type TallyWords } from './tally';

const SIGN = {
  create: '[+]',
  update: '[~]',
  delete: '[-]',
  unchanged: '[=]',
  conflict: '[!]',
} as const;
const TILE_SIGN = { added: '+', changed: '~', moved: '>', renamed: '~', removed: '-' } as const;
const ALERT_SIGN = { create: '+', update: '~', delete: '-' } as const;

export interface RenderOptions {
  showUnchanged?: boolean;
  /** ANSI colour (only on a TTY without NO_COLOR: see useColor). */
  color?: boolean;
  /** Named in the header: which service and owner the plan is for. */
  service?: string;
}

/** Colour on a terminal unless NO_COLOR is set (https://no-color.org). */
export function useColor(isTTY: boolean, env: Record<string, string | undefined>): boolean {
  return isTTY && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

type Paint = (kind: '+' | '-' | '~' | '!', text: string) => string;
const CODES = { '+': 32, '-': 31, '~': 33, '!': 35 } as const;
const painter =
  (color: boolean): Paint =>
  (kind, text) =>
    color ? `\x1b[${CODES[kind]}m${text}\x1b[0m` : text;

const arrow = (c: FieldChange) =>
  c.from === undefined
    ? `${formatValue(c.to)} (new)`
    : c.to === undefined
      ? `${formatValue(c.from)} → (removed)`
      : `${formatValue(c.from)} → ${formatValue(c.to)}`;

export function renderPlan(plan: Plan, options: RenderOptions = {}): string {
  const paint = painter(options.color ?? false);
  const lines: string[] = [];
  if (options.service) lines.push(`Service ${options.service}, owner "${plan.owner}":`);
  for (const c of plan.objects ?? []) {
    if (c.action === 'unchanged' && c.alerts.length === 0 && !options.showUnchanged) continue;
    lines.push(...renderObject(c, paint));
  }
  for (const c of plan.changes) {
    if (c.action === 'unchanged' && c.alerts.length === 0 && !options.showUnchanged) continue;
    lines.push(...renderChange(c, paint));
  }
  for (const note of plan.notes) lines.push(`note: ${note}`);
  if (plan.pending && plan.cost) lines.push(`Apply: ${costLine(plan.cost)}.`);
  lines.push(summaryLine(plan));
  return lines.join('\n');
}

const PLAN_WORDS: TallyWords = [
  ['create', 'to create', true],
  ['update', 'to update', true],
  ['delete', 'to delete', true],
  ['unchanged', 'unchanged', true],
  ['conflict', 'in conflict', false],
];
const APPLY_WORDS: TallyWords = [
  ['created', 'created', true],
  ['updated', 'updated', true],
  ['deleted', 'deleted', true],
  ['unchanged', 'unchanged', true],
  ['aborted', 'aborted', false],
  ['failed', 'failed', false],
  ['not applied', 'not applied', false],
];

/**
 * "Plan: 1 dashboard to create, 1 webhook to create, 0 to update, 0 to delete, 0 unchanged."
 * `unread`: dashboards a manifest vouched in sync without reading them (counted unchanged).
 */
export function summaryLine(plan: Plan, unread = 0): string {
  const deleted = plan.changes.reduce((n, c) => n + c.alertsDeleted.length, 0);
  return (
    `Plan: ${tallyText(planTally(plan, unread), PLAN_WORDS)}` +
    (deleted > 0 ? `; ${deleted} alert(s) would be deleted with their tiles` : '') +
    (plan.pending ? '.' : '. No changes.')
  );
}

/**
 * "Apply complete: 1 dashboard created, 1 webhook created, 0 updated, 0 deleted, 0 unchanged."
 * `unread` as in summaryLine.
 */
export function applySummaryLine(result: ApplyResult, unread = 0): string {
  const complete = result.ok && !result.interrupted;
  return `Apply ${complete ? 'complete' : 'incomplete'}: ${tallyText(applyTally(result, unread), APPLY_WORDS)}.`;
}

const NOUN = { webhook: 'webhook', savedSearch: 'saved search' } as const;

/** A webhook or saved search: its fields (never a webhook's URL or headers), its alerts. */
function renderObject(c: ObjectChange, paint: Paint): string[] {
  const where = c.sourceFile ? ` (${c.sourceFile})` : '';
  const id = c.id ? ` id=${c.id}` : '';
  const pendingAlerts = c.action === 'unchanged' && c.alerts.length > 0;
  const sign = pendingAlerts ? '[~]' : SIGN[c.action];
  const kind = (sign[1] === '=' ? '~' : sign[1]) as '+' | '-' | '~' | '!';
  const action = pendingAlerts ? 'alerts of' : c.action;
  const head = `${sign} ${action} ${NOUN[c.kind]} "${c.name}"${where}${id}${c.adopted ? ' [adopt]' : ''}`;
  const lines = [paint(kind, head)];
  if (c.reason) lines.push(`    reason: ${c.reason}`);
  if (c.action !== 'delete' && c.action !== 'conflict')
    for (const f of c.fields)
      lines.push(
        `    ${c.action === 'create' ? '+' : '~'} ${f.path}: ${c.action === 'create' ? formatValue(f.to) : arrow(f)}`,
      );
  for (const [field, state] of Object.entries(c.writeOnly ?? {}))
    lines.push(`    ${state.startsWith('resent') ? '~' : '='} ${field}: ${state}`);
  if (c.alerts.length > 0) {
    lines.push('    alerts:');
    lines.push(
      ...tree(
        '    ',
        c.alerts.map((a) => renderAlert(a, paint, 'saved search')),
      ),
    );
  }
  if (c.action === 'delete' && c.alertsDeleted.length > 0)
    lines.push(
      paint(
        '!',
        `    ! deletes ${c.alertsDeleted.length} alert(s) with it: ${c.alertsDeleted.map(alertLabel).join(', ')}`,
      ),
    );
  return lines;
}

/** Draws `items` as a tree under `indent` (├─ / └─, children under │). */
function tree(indent: string, items: { head: string; children: string[] }[]): string[] {
  const out: string[] = [];
  items.forEach((item, i) => {
    const last = i === items.length - 1;
    out.push(`${indent}${last ? '└─ ' : '├─ '}${item.head}`);
    item.children.forEach((child, j) =>
      out.push(
        `${indent}${last ? '   ' : '│  '}${j === item.children.length - 1 ? '└─ ' : '├─ '}${child}`,
      ),
    );
  });
  return out;
}

function renderChange(c: DashboardChange, paint: Paint): string[] {
  const where = c.sourceFile ? ` (${c.sourceFile})` : '';
  const id = c.id ? ` id=${c.id}` : '';
  const action = c.action === 'unchanged' && c.alerts.length > 0 ? 'alerts of' : c.action;
  const sign = c.action === 'unchanged' && c.alerts.length > 0 ? '[~]' : SIGN[c.action];
  const kind = (sign[1] === '=' ? '~' : sign[1]) as '+' | '-' | '~' | '!';
  const head = `${sign} ${action} dashboard "${c.name}"${where}${id}${c.adopted ? ' [adopt]' : ''}`;
  const lines = [paint(kind, head)];
  if (c.reason) lines.push(`    reason: ${c.reason}`);
  if (c.fields.name) lines.push(`    ~ name: "${c.fields.name.from}" → "${c.fields.name.to}"`);
  if (c.fields.tags) {
    const { added, removed } = c.fields.tags;
    lines.push(
      `    ~ tags: ${[...added.map((t) => `+${t}`), ...removed.map((t) => `-${t}`)].join(' ')}`,
    );
  }
  for (const f of c.fields.filters ?? []) lines.push(`    ~ ${f.path}: ${arrow(f)}`);
  if (c.fields.marker && c.action === 'update')
    lines.push(
      `    ~ ownership marker tags${c.adopted ? ' (adopted; no field changes unless listed)' : ''}`,
    );
  if (c.action === 'create') {
    // An empty dashboard gets no tile line (it read "+ 0 tile(s): " before).
    if (c.tiles.length > 0)
      lines.push(`    + ${c.tiles.length} tile(s): ${c.tiles.map((t) => t.name).join(', ')}`);
  } else if (c.tiles.length > 0) {
    lines.push(
      ...tree(
        '    ',
        c.tiles.map((t) => renderTile(t, paint)),
      ),
    );
  }
  if (c.alerts.length > 0) {
    lines.push('    alerts:');
    lines.push(
      ...tree(
        '    ',
        c.alerts.map((a) => renderAlert(a, paint)),
      ),
    );
  }
  if (c.action === 'delete' && c.alertsDeleted.length > 0) {
    lines.push(
      paint(
        '!',
        `    ! deletes ${c.alertsDeleted.length} alert(s): ${c.alertsDeleted.map(alertLabel).join(', ')}`,
      ),
    );
  }
  return lines;
}

function renderTile(t: TileChange, paint: Paint): { head: string; children: string[] } {
  const sign = TILE_SIGN[t.kind];
  const what =
    t.kind === 'renamed' ? `renamed from "${t.from}" (keeps id ${t.id} and its alerts)` : t.kind;
  const children = (t.changes ?? [])
    .filter((c) => t.kind !== 'renamed' || c.path !== 'name')
    .map((c) => `${c.path}: ${arrow(c)}`);
  if (t.alerts && t.alerts.length > 0) {
    children.push(
      paint(
        '!',
        `! WARNING: removing this tile deletes ${t.alerts.length} alert(s): ${t.alerts.map(alertLabel).join(', ')}`,
      ),
    );
  }
  if (t.warning) children.push(paint('!', `! ${t.warning}`));
  const head = paint(sign === '>' ? '~' : sign, `${sign} tile "${t.name}" ${what}`);
  return { head, children };
}

function renderAlert(
  a: AlertChange,
  paint: Paint,
  holder = 'tile',
): { head: string; children: string[] } {
  const sign = ALERT_SIGN[a.action];
  // OK goes without saying; any other state (PENDING, ALERT, ...) is worth a look before a write.
  const state = a.state && a.state !== 'OK' ? `, state ${a.state}` : '';
  const id = a.id ? ` (${a.id}${state})` : '';
  const adopted = a.adopt ? ' adopted (marker added; no field changes)' : '';
  const head = paint(sign, `${sign} alert "${a.name}" on ${holder} "${a.tile}"${id}${adopted}`);
  const children =
    a.action === 'create'
      ? a.changes.map((c) => `${c.path}: ${formatValue(c.to)}`)
      : a.changes.map((c) => `${c.path}: ${arrow(c)}`);
  return { head, children };
}

const alertLabel = (a: { id: string; name?: string }) => (a.name ? `"${a.name}" (${a.id})` : a.id);

/** A pull-request comment: a summary, then the tree in a diff block (+ green, - red on GitHub). */
export function renderPlanMarkdown(plan: Plan, options: { service?: string } = {}): string {
  const where = options.service ? ` for service \`${options.service}\`` : '';
  const lines = [
    `### cloudops dashboards plan${where} (owner \`${plan.owner}\`)`,
    '',
    `**${summaryLine(plan)}**`,
  ];
  if (plan.pending && plan.cost) lines.push('', `Apply: ${costLine(plan.cost)}.`);
  const body = renderPlan({ ...plan, notes: [], pending: false }, {})
    .split('\n')
    .slice(0, -1);
  if (body.length > 0) {
    lines.push('', '```diff');
    // diff colouring keys on the first column: move each line's sign there.
    for (const line of body) {
      const m = /^(\s*(?:[├└│ ]─?\s*)*)\[?([+\-~>!=])/.exec(line);
      const sign = m?.[2] === '+' ? '+' : m?.[2] === '-' ? '-' : m?.[2] === '!' ? '!' : ' ';
      lines.push(`${sign} ${line}`);
    }
    lines.push('```');
  }
  if (plan.notes.length > 0) lines.push('', ...plan.notes.map((n) => `- note: ${n}`));
  return lines.join('\n');
}

/** The plan without internals (the desired file and the dashboard as seen). */
export function planToJson(plan: Plan): unknown {
  return {
    pending: plan.pending,
    owner: plan.owner,
    counts: plan.counts,
    alertCounts: plan.alertCounts,
    ...(plan.cost ? { cost: plan.cost } : {}),
    notes: plan.notes,
    changes: plan.changes.map(
      ({ desired: _d, seen: _s, tileIds: _t, seenAlerts: _a, ...rest }) => ({
        ...rest,
        alerts: rest.alerts.map(({ want: _w, ...a }) => a),
      }),
    ),
    ...(plan.objects
      ? {
          objects: plan.objects.map(({ search: _s, keptDigests: _k, seenPrint: _p, ...rest }) => ({
            ...rest,
            alerts: rest.alerts.map(({ want: _w, ...a }) => a),
          })),
        }
      : {}),
  };
}

export function renderApply(result: ApplyResult): string {
  const lines: string[] = [];
  for (const o of result.objects ?? []) {
    const alerts = o.alertResults ?? [];
    if (o.status !== 'unchanged' || alerts.length > 0) {
      const msg = o.message ? `: ${o.message}` : '';
      lines.push(
        `${o.status.padEnd(9)} ${NOUN[o.kind]} "${o.name}"${o.id ? ` id=${o.id}` : ''}${msg}`,
      );
    }
    for (const a of alerts) lines.push(alertResultLine(a, NOUN[o.kind]));
  }
  for (const r of result.results) {
    const alerts = r.alertResults ?? [];
    if (r.status !== 'unchanged' || alerts.length > 0) lines.push(resultLine(r));
    for (const a of alerts) lines.push(alertResultLine(a));
  }
  lines.push(applySummaryLine(result));
  if (result.interrupted) {
    const all = [...(result.objects ?? []), ...result.results];
    const named = (statuses: string[]) =>
      all
        .filter((r) => statuses.includes(r.status))
        .map((r) => `${'kind' in r ? NOUN[r.kind] : 'dashboard'} "${r.name}"`)
        .join(', ') || 'nothing';
    lines.push(
      `Interrupted. Applied: ${named(['created', 'updated', 'deleted'])}. ` +
        `Not applied: ${named(['not applied'])}.`,
    );
  }
  return lines.join('\n');
}

function alertResultLine(a: AlertResult, holder = 'tile'): string {
  const msg = a.message ? `: ${a.message}` : '';
  return `  alert ${a.action} "${a.name}" on ${holder} "${a.tile}": ${a.status}${a.id ? ` id=${a.id}` : ''}${msg}`;
}

function resultLine(r: DashboardResult): string {
  const where = r.sourceFile ? ` (${r.sourceFile})` : '';
  const msg = r.message ? `: ${r.message}` : '';
  return `${r.status.padEnd(9)} "${r.name}"${where}${r.id ? ` id=${r.id}` : ''}${msg}`;
}
