import { readFile } from 'node:fs/promises';
import {
  createAlertProvisioner,
  DEFAULT_VERSIONS_FILE,
  FileVersionStore,
  versionScope,
  type ProvisionResult,
} from '../../lib/alerts';
import { primaryServiceId } from '../../lib/config';
import { ValidationError } from '../../lib/errors';
import { alertEvent, parseEvent, type AlertEvent } from '../../lib/events';
import { redactText } from '../../lib/redact';
import { expectSubcommand, formatHelp, parseCommand, type CommandSpec } from '../args';
import { cliLogger, connectFromEnv } from '../connect';
import type { CommandHelp } from '../help';
import { unauthorizedHint } from '../failure';
import { noteStdinFromTerminal, type CliIO, type Command } from '../io';
import { forTerminal } from '../../lib/text/terminal';

const spec = {
  usage: 'cloudops alerts provision [--file FILE] [--state-file FILE] [--json]',
  summary:
    'Provision alerts from events (`Dashboard Synced`, `Alert Provision Requested`; one JSON event or an\n' +
    'array), as the provision-alerts function does. Reads stdin unless --file is given (`-` = stdin).\n' +
    'Each event is validated and applied on its own, as the function does with queue records: an invalid\n' +
    'or failing event is reported by name and the others are still applied. The newest event version per\n' +
    'owner is kept in the state file, so an older event given later is skipped as stale.\n' +
    'Exit codes: 0 ok; 1 an event was invalid or failed (each named); 64 usage or setup error.',
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

export const alertsHelp: CommandHelp = { subcommands: { provision: spec } };

export const alertsCommand: Command = {
  name: 'alerts',
  summary: 'alerts from events: provision',
  async run(argv, io, signal) {
    const { values, positionals } = parseCommand(spec, argv);
    if (values.help) {
      io.out(formatHelp(spec));
      return 0;
    }
    expectSubcommand(positionals, 'provision');
    const file = values.file ?? '-';
    const label = file === '-' ? 'stdin' : file;
    if (file === '-') noteStdinFromTerminal(io, 'the events (JSON)', '--file FILE');
    const text =
      file === '-'
        ? await readStdin()
        : await readFile(file, 'utf8').catch((e: unknown) => {
            throw new ValidationError(
              `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`,
              { source: file },
            );
          });

    const parsed = parseEvents(text, label);
    if ('problem' in parsed) {
      io.err(parsed.problem);
      return 1;
    }
    const results: EventResult[] = parsed.map((p) =>
      'error' in p ? { event: p.ref, ok: false, error: p.error } : { event: p.ref, ok: true },
    );
    const valid = parsed.flatMap((p, i) => ('event' in p ? [{ ...p, index: i }] : []));
    if (valid.length > 0) {
      const connection = connectFromEnv(io.env);
      try {
        const { config } = connection;
        const serviceId = primaryServiceId(config);
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
        // One session, as for a queue batch: the alerts are listed once for all the events.
        const session = provisioner.session({ signal });
        for (const v of valid) await session.add(v.event, { ref: v.ref });
        const outcomes = await session.finish();
        outcomes.forEach((o, i) => {
          const v = valid[i];
          const name = `${v.event['detail-type']} event ${v.ref}`;
          results[v.index] = o.ok
            ? { event: o.result.event, ok: true, result: o.result }
            : {
                event: name,
                ok: false,
                error: redactText(withHint(o.error, io.env)),
                result: (o.error as { result?: ProvisionResult }).result,
              };
        });
      } finally {
        connection.close();
      }
    }
    const failed = results.filter((r) => !r.ok);
    for (const r of failed) {
      if (!r.result) io.err(forTerminal(r.error ?? `${r.event} failed`));
    }
    if (failed.length > 0) {
      io.err(
        `${failed.length} of ${results.length} event(s) failed: ${failed.map((r) => r.event).join(', ')}`,
      );
    }
    if (values.json) io.out(JSON.stringify(results, null, 2));
    else io.out(render(results));
    return results.every((r) => r.ok) ? 0 : 1;
  },
};

/** An error's message, and for a refused credential the settings to check. */
const withHint = (error: Error, env: CliIO['env']) => {
  const hint = unauthorizedHint(error, env);
  return hint ? `${error.message} — ${hint}` : error.message;
};

type Parsed = { ref: string; event: AlertEvent } | { ref: string; error: string };

/** Each event parsed on its own (a bad one names itself); a file that is not JSON is one problem. */
function parseEvents(text: string, label: string): Parsed[] | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { problem: `${label}: not JSON (${why})` };
  }
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0) return { problem: `${label}: no events` };
  return list.map((raw, i) => {
    const ref = Array.isArray(value) ? `${label}[${i}]` : label;
    try {
      return { ref, event: parseEvent(alertEvent, raw, ref) };
    } catch (error) {
      return { ref, error: redactText(error instanceof Error ? error.message : String(error)) };
    }
  });
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
        `  ${o.action.padEnd(17)} ${forTerminal(o.name)}${o.alertId ? ` [${forTerminal(o.alertId)}]` : ''}${o.detail ? ` ${forTerminal(o.detail)}` : ''}`,
      );
    }
    for (const e of r.result?.errors ?? (r.error ? [r.error] : []))
      lines.push(`  error: ${forTerminal(e)}`);
  }
  return lines.join('\n');
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
