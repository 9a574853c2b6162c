/**
 * `cloudops pipes list | get | start | stop | resync`: what the person paged reads and does.
 * The work is lib/pipes/oncall.ts; here are the flags, the question, and the printing. Every
 * name and message from the service goes through `shown` before it reaches the terminal; JSON
 * carries the raw values.
 */
import { readConnectionEnv } from '../../lib/config';
import {
  checkCommand,
  locatePipe,
  PipeNotFoundError,
  readServices,
  sendCommand,
} from '../../lib/pipes/oncall';
import type { ServiceView } from '../../lib/pipes/view';
import type { PipeStateCommand } from '../../lib/schemas';
import { LocalWatchStore } from '../../lib/watch/local-store';
import { parseCommand, UsageError } from '../args';
import type { Ask } from '../ask';
import { connectFromEnv } from '../connect';
import { EXIT } from '../exit';
import { CliFailure } from '../failure';
import type { CliIO } from '../io';
import { DEFAULT_STATE_FILE, pipesHelp } from './pipes-help';
import { formatPipe, formatServices, shown } from './pipes-view';

/** The services a command reads: `--service`, or every configured one. */
function servicesOf(io: CliIO, service: string | undefined) {
  const env = readConnectionEnv(io.env, [
    'CLOUDOPS_API_URL',
    'CLOUDOPS_ORGANIZATION_ID',
    ...(service ? [] : (['CLOUDOPS_SERVICE_ID'] as const)),
  ]);
  return {
    organizationId: env.CLOUDOPS_ORGANIZATION_ID!,
    serviceIds: service ? [service] : env.CLOUDOPS_SERVICE_ID!,
  };
}

function connect(io: CliIO) {
  const connection = connectFromEnv(io.env);
  return { api: connection.clients.requireManagement(), close: () => connection.close() };
}

/** `pipes list`: one read per service; exit 1 when a service could not be read. */
export async function runPipesList(argv: string[], io: CliIO, signal: AbortSignal) {
  const { values } = parseCommand(pipesHelp.subcommands.list, argv);
  const services = await readWith(io, values, signal);
  io.out(values.json ? JSON.stringify({ services }, null, 2) : formatServices(services));
  return services.some((s) => s.read === 'failed') ? EXIT.failure : EXIT.ok;
}

/** `pipes get ID`: the first service whose read shows the pipe. */
export async function runPipesGet(argv: string[], io: CliIO, signal: AbortSignal) {
  const { values, positionals } = parseCommand(pipesHelp.subcommands.get, argv);
  const ref = pipeRef(positionals);
  const services = await readWith(io, values, signal);
  const found = services.flatMap((s) => s.pipes).filter((p) => p.pipeId === ref || p.name === ref);
  const failed = services.filter((s) => s.read === 'failed');
  if (found.length !== 1) {
    const why =
      found.length > 1
        ? `${found.length} pipes are named "${ref}": use an id (${found.map((p) => p.pipeId).join(', ')})`
        : `no pipe "${ref}" in ${services.map((s) => `${s.serviceId} (${s.read})`).join(', ')}`;
    throw new CliFailure(shown(why + (failed.length ? `; ${failed[0].message}` : '')));
  }
  const pipe = found[0];
  const metrics = services.find((s) => s.serviceId === pipe.serviceId)?.metrics[pipe.pipeId];
  io.out(values.json ? JSON.stringify({ ...pipe, metrics }, null, 2) : formatPipe(pipe, metrics));
  return EXIT.ok;
}

function pipeRef(positionals: string[]): string {
  const ref = positionals[0];
  if (!ref) throw new UsageError('expected a pipe id or name');
  return ref;
}

async function readWith(
  io: CliIO,
  values: { service?: string; 'state-file'?: string },
  signal: AbortSignal,
): Promise<ServiceView[]> {
  const { organizationId, serviceIds } = servicesOf(io, values.service);
  const { api, close } = connect(io);
  try {
    const store = new LocalWatchStore(values['state-file'] ?? DEFAULT_STATE_FILE);
    return await readServices(api, serviceIds, { organizationId, store, now: Date.now, signal });
  } finally {
    close();
  }
}

/** What is printed once the service took the command, and when it found nothing to do. */
const SAID: Record<PipeStateCommand, { done: string; already: string }> = {
  start: { done: 'started', already: 'already running' },
  stop: { done: 'stopped', already: 'already stopped' },
  resync: { done: 'resync started for', already: 'already resyncing' },
};

/** `pipes start | stop | resync ID`: checked first, asked on a terminal, sent once. */
export async function runPipesCommand(
  command: PipeStateCommand,
  argv: string[],
  io: CliIO,
  signal: AbortSignal,
  ask: Ask,
): Promise<number> {
  const { values, positionals } = parseCommand(pipesHelp.subcommands[command], argv);
  const ref = pipeRef(positionals);
  const canAsk = io.isTTY && (io.stdinIsTTY ?? Boolean(process.stdin.isTTY));
  if (!values.yes && !canAsk)
    throw new UsageError(`pipes ${command} off a terminal needs --yes (nothing was changed)`);
  const { serviceIds } = servicesOf(io, values.service);
  const { api, close } = connect(io);
  try {
    const target = await locatePipe(api, serviceIds, ref, signal).catch((error: unknown) => {
      throw error instanceof PipeNotFoundError ? new CliFailure(shown(error.message)) : error;
    });
    const name = `pipe ${shown(target.pipe.name)} (${shown(target.pipe.id)})`;
    const check = checkCommand(command, {
      state: target.pipe.state,
      sourceKind: target.sourceKind,
    });
    if (check.kind === 'done') {
      io.out(`${name}: ${check.message}`);
      return EXIT.ok;
    }
    if (check.kind === 'refused')
      throw new CliFailure(`${name}: ${shown(check.message)}; nothing was sent`);
    if (!values.yes) {
      const where = `service ${shown(target.serviceId)}`;
      const answer = await ask(
        `${command} ${name} in ${where}? It is ${shown(target.pipe.state)}. [y/N] `,
      );
      if (!/^y(es)?$/i.test(answer.trim())) {
        io.err(`${command} cancelled; nothing was changed`);
        return EXIT.failure;
      }
    }
    const answer = await sendCommand(api, target, command, signal);
    const said = SAID[command];
    io.out(
      answer.state
        ? `${said.done} ${name}: ${shown(target.pipe.state)} -> ${shown(answer.state)}`
        : `${name}: ${said.already}`,
    );
    return EXIT.ok;
  } finally {
    close();
  }
}
