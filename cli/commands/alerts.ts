import { readFile } from 'node:fs/promises';
import {
  createAlertProvisioner,
  DEFAULT_VERSIONS_FILE,
  FileVersionStore,
  versionScope,
  type ProvisionResult,
} from '../../lib/alerts';
import { ValidationError } from '../../lib/errors';
import { alertEvent, parseEvent, type AlertEvent } from '../../lib/events';
import { redactText } from '../../lib/redact';
import { formatHelp, parseCommand, UsageError, type CommandSpec } from '../args';
import { cliLogger, connectFromEnv } from '../connect';
import { noteStdinFromTerminal, type Command } from '../io';

const spec = {
  usage: 'cloudops alerts provision [--file FILE] [--state-file FILE] [--json]',
  summary:
    'Provision alerts from events (`Dashboard Synced`, `Alert Provision Requested`; one JSON event or an\n' +
    'array), as the provision-alerts function does. Reads stdin unless --file is given (`-` = stdin).\n' +
    'Every event is validated before any is applied. The newest event version per owner is kept in the\n' +
    'state file, so an older event given later is skipped as stale.\n' +
    'Exit codes: 0 ok; 1 an event was invalid or failed; 2 usage.',
  options: {
    file: { type: 'string' },
    'state-file': { type: 'string' },
    json: { type: 'boolean' },
  },
  help: {
    file: 'file holding the event(s) as JSON (default: stdin)',
    'state-file': `where the newest event version per alert owner is kept (default ${DEFAULT_VERSIONS_FILE})`,
    json: 'print the per-event results as JSON',
  },
  positionals: 1,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

export const alertsCommand: Command = {
  name: 'alerts',
  summary: 'alerts from events: provision',
  async run(argv, io, signal) {
    const { values, positionals } = parseCommand(spec, argv);
    if (values.help) {
      io.out(formatHelp(spec));
      return 0;
    }
    if (positionals[0] !== 'provision') {
      throw new UsageError(
        `expected provision, got ${positionals[0] ? `"${positionals[0]}"` : 'nothing'}`,
      );
    }
    const file = values.file ?? '-';
    const label = file === '-' ? 'stdin' : file;
    if (file === '-') noteStdinFromTerminal(io, 'the events (JSON)', '--file FILE');
    const text =
      file === '-'
        ? await readStdin()
        : await readFile(file, 'utf8').catch((e: unknown) => {
            throw new ValidationError(
              `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`,
              file,
            );
          });

    const { events, problems } = parseEvents(text, label);
    if (problems.length > 0) {
      io.err(problems.join('\n'));
      return 1;
    }
    const connection = connectFromEnv(io.env);
    const results: EventResult[] = [];
    try {
      const { config } = connection;
      const serviceId = connection.serviceIds[0];
      const provisioner = createAlertProvisioner({
        backend: connection.clients.backend(serviceId),
        logger: cliLogger(io.env, { command: 'alerts provision' }),
        versions: new FileVersionStore(values['state-file'] ?? DEFAULT_VERSIONS_FILE),
        versionScope: versionScope({
          mode: config.CLOUDOPS_OBSERVABILITY_MODE,
          serviceId,
          observabilityUrl: config.CLOUDOPS_OBSERVABILITY_URL,
        }),
      });
      for (const [i, event] of events.entries()) {
        const ref = `${label}[${i}]`;
        try {
          const result = await provisioner.provision(event, { ref, signal });
          results.push({ event: result.event, ok: true, result });
        } catch (error) {
          const message = redactText(error instanceof Error ? error.message : String(error));
          const result = (error as { result?: ProvisionResult }).result;
          results.push({
            event: `${event['detail-type']} event ${ref}`,
            ok: false,
            error: message,
            result,
          });
        }
      }
    } finally {
      connection.close();
    }
    if (values.json) io.out(JSON.stringify(results, null, 2));
    else io.out(render(results));
    return results.every((r) => r.ok) ? 0 : 1;
  },
};

/** All events, or every problem of every bad one (nothing is applied then). */
function parseEvents(text: string, label: string): { events: AlertEvent[]; problems: string[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { events: [], problems: [`${label}: not JSON (${why})`] };
  }
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  const events: AlertEvent[] = [];
  const problems: string[] = [];
  list.forEach((raw, i) => {
    try {
      events.push(parseEvent(alertEvent, raw, Array.isArray(value) ? `${label}[${i}]` : label));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  });
  if (list.length === 0) problems.push(`${label}: no events`);
  return { events, problems };
}

interface EventResult {
  event: string;
  ok: boolean;
  result?: ProvisionResult;
  error?: string;
}

function render(results: EventResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(
      `${r.ok ? 'ok' : 'FAILED'} ${r.event}${r.result ? ` (${r.result.writes} writes)` : ''}`,
    );
    for (const o of r.result?.outcomes ?? []) {
      if (o.action === 'failed') continue;
      lines.push(
        `  ${o.action.padEnd(17)} ${o.name}${o.alertId ? ` [${o.alertId}]` : ''}${o.detail ? ` ${o.detail}` : ''}`,
      );
    }
    for (const e of r.result?.errors ?? (r.error ? [r.error] : [])) lines.push(`  error: ${e}`);
  }
  return lines.join('\n');
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
