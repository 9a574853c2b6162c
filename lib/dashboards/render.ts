/** Draws plans and apply results: for people ([+] [~] [-], counts) and as JSON for machines. */
import type { ApplyResult } from './apply';
import type { DashboardChange, Plan, TileChange } from './plan';

const SIGN = { create: '[+]', update: '[~]', delete: '[-]', unchanged: '[=]' } as const;
const TILE_SIGN = { added: '+', changed: '~', moved: '>', removed: '-' } as const;

export function renderPlan(plan: Plan, options: { showUnchanged?: boolean } = {}): string {
  const lines: string[] = [];
  for (const c of plan.changes) {
    if (c.action === 'unchanged' && !options.showUnchanged) continue;
    lines.push(...renderChange(c));
  }
  for (const note of plan.notes) lines.push(`note: ${note}`);
  const { create, update, delete: del, unchanged } = plan.counts;
  const deleted = plan.changes.reduce((n, c) => n + c.alertsDeleted.length, 0);
  lines.push(
    `Plan: ${create} to create, ${update} to update, ${del} to delete, ${unchanged} unchanged` +
      (deleted > 0 ? `; ${deleted} alert(s) would be deleted` : '') +
      (plan.pending ? '.' : '. No changes.'),
  );
  return lines.join('\n');
}

function renderChange(c: DashboardChange): string[] {
  const where = c.sourceFile ? ` (${c.sourceFile})` : '';
  const id = c.id ? ` id=${c.id}` : '';
  const head = `${SIGN[c.action]} ${c.action} dashboard "${c.name}"${where}${id}${c.adopted ? ' [adopt]' : ''}`;
  const lines = [head];
  if (c.reason) lines.push(`    reason: ${c.reason}`);
  if (c.fields.name) lines.push(`    ~ name: "${c.fields.name.from}" -> "${c.fields.name.to}"`);
  if (c.fields.tags) {
    const { added, removed } = c.fields.tags;
    lines.push(
      `    ~ tags: ${[...added.map((t) => `+${t}`), ...removed.map((t) => `-${t}`)].join(' ')}`,
    );
  }
  if (c.action !== 'create') for (const t of c.tiles) lines.push(...renderTile(t));
  else lines.push(`    + ${c.tiles.length} tile(s): ${c.tiles.map((t) => t.name).join(', ')}`);
  if (c.action === 'delete' && c.alertsDeleted.length > 0) {
    lines.push(
      `    ! deletes ${c.alertsDeleted.length} alert(s): ${c.alertsDeleted.map(alertLabel).join(', ')}`,
    );
  }
  return lines;
}

function renderTile(t: TileChange): string[] {
  const fields = t.fields ? ` (${t.fields.join(', ')})` : '';
  const lines = [`    ${TILE_SIGN[t.kind]} tile "${t.name}" ${t.kind}${fields}`];
  if (t.alerts && t.alerts.length > 0) {
    lines.push(
      `      ! WARNING: removing this tile deletes ${t.alerts.length} alert(s): ${t.alerts.map(alertLabel).join(', ')}`,
    );
  }
  return lines;
}

const alertLabel = (a: { id: string; name?: string }) => (a.name ? `"${a.name}" (${a.id})` : a.id);

/** The plan without internals (the desired file and the dashboard as seen). */
export function planToJson(plan: Plan): unknown {
  return {
    pending: plan.pending,
    counts: plan.counts,
    notes: plan.notes,
    changes: plan.changes.map(({ desired: _d, seen: _s, ...rest }) => rest),
  };
}

export function renderApply(result: ApplyResult): string {
  const lines = result.results
    .filter((r) => r.status !== 'unchanged')
    .map((r) => {
      const where = r.sourceFile ? ` (${r.sourceFile})` : '';
      const msg = r.message ? `: ${r.message}` : '';
      return `${r.status.padEnd(9)} "${r.name}"${where}${r.id ? ` id=${r.id}` : ''}${msg}`;
    });
  const count = (s: string) => result.results.filter((r) => r.status === s).length;
  lines.push(
    `Apply: ${count('created')} created, ${count('updated')} updated, ${count('deleted')} deleted, ` +
      `${count('unchanged')} unchanged, ${count('aborted')} aborted, ${count('failed')} failed.`,
  );
  return lines.join('\n');
}
