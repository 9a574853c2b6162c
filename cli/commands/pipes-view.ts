/** How `pipes list` and `pipes get` print for people (their JSON is the views as they are). */
import type { OpenCondition, PipeView, ServiceView } from '../../lib/pipes/view';
import type { PipeReading } from '../../lib/schemas/metrics';
import { forTerminal } from '../../lib/text/terminal';

/**
 * Text from the service (names, states, messages) as a terminal shows it: the terminal channel's
 * escaping (lib/text/terminal.ts), so an escape sequence leaves nothing behind and no bidi
 * control reorders what is read. Every printed value from the service goes through here.
 */
export const shown = forTerminal;

/** `2026-08-03 09:05Z` */
const minute = (iso: string | undefined) =>
  iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z` : '-';
const num = (n: number | undefined) => (n === undefined ? '-' : String(n));

/** `stalled (critical, piling-up) since 2026-08-03 09:05Z` */
function conditionText(c: OpenCondition): string {
  const state = c.state === c.name ? '' : `, ${shown(c.state)}`;
  return `${shown(c.name)} (${c.severity}${state}) since ${minute(c.since)}`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

const READ_NOTE: Record<ServiceView['read'], string> = {
  metrics: 'read from its metrics',
  listing: 'listed (no metrics endpoint): no progress',
  idle: 'idle: its pipes are not read (reading would not wake it)',
  'not observed': 'not observed this read (a partial scrape): try again',
  failed: 'could not be read',
};

export function formatServices(services: readonly ServiceView[]): string {
  const lines: string[] = [];
  for (const s of services) {
    const note = s.read === 'failed' && s.message ? `: ${shown(s.message)}` : '';
    lines.push(`service ${shown(s.serviceId)}: ${READ_NOTE[s.read]}${note}`);
    if (s.pipes.length === 0) continue;
    const header = [
      'NAME',
      'STATE',
      'SINCE',
      'LAST PROGRESS',
      'SENT/MIN',
      'FETCHED/MIN',
      'ERRORS/MIN',
      'OPEN CONDITIONS',
    ];
    const rows = s.pipes.map((p) => [
      shown(p.name),
      shown(p.state),
      minute(p.stateSince),
      minute(p.lastProgressAt),
      num(p.sentPerMinute),
      num(p.fetchedPerMinute),
      num(p.errorsPerMinute),
      p.conditions.map(conditionText).join('; ') || '-',
    ]);
    lines.push(...table([header, ...rows]).map((line) => `  ${line}`));
  }
  return lines.join('\n');
}

export function formatPipe(pipe: PipeView, metrics: PipeReading | undefined): string {
  const readings = pipe.keptReadings ?? [];
  const lines = [
    `pipe ${shown(pipe.name)} (${shown(pipe.pipeId)}) in service ${shown(pipe.serviceId)}`,
    `  state            ${shown(pipe.state)} since ${minute(pipe.stateSince)}`,
    `  source           ${shown(pipe.sourceKind ?? 'unknown')}`,
    `  last progress    ${minute(pipe.lastProgressAt)}`,
    `  per minute       sent ${num(pipe.sentPerMinute)}, fetched ${num(pipe.fetchedPerMinute)}, errors ${num(pipe.errorsPerMinute)}`,
    `  open conditions  ${pipe.conditions.map(conditionText).join('; ') || 'none'}`,
  ];
  const values = Object.entries(metrics ?? {}).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number',
  );
  if (values.length > 0) {
    lines.push('  metrics:');
    for (const [name, value] of values) lines.push(`    ${name.padEnd(28)} ${value}`);
  }
  if (readings.length > 0) {
    lines.push('  readings kept (sent / fetched / errors):');
    for (const r of readings)
      lines.push(
        `    ${minute(new Date(r.at).toISOString())}  ${num(r.sent)} / ${num(r.fetched)} / ${num(r.errors)}`,
      );
  }
  return lines.join('\n');
}
