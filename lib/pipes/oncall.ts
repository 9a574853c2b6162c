/**
 * The on-call commands' work (`cloudops pipes list | get | start | stop | resync`): read each
 * service once (its metrics; its listing where the endpoint is not served) beside the
 * watchdog's records, find one pipe, and send a state command only when it can change something.
 * The decisions are pure (`checkCommand`); the CLI prints.
 */
import { isServiceIdle } from '../api/errors';
import { CloudOpsError } from '../errors';
import type { Pipe, PipeStateCommand } from '../schemas';
import type { WatchStore } from '../watch/store';
import type { ServiceObservation } from './observe';
import { loadService } from './records';
import { sourceKindOfPipe } from './source-kind';
import { viewService, type ServiceView } from './view';
import { readPipesOf, type PipeApi } from './watchdog';

interface ReadOptions {
  organizationId: string;
  /** The watchdog's records (the CLI's state file), when kept. */
  store?: WatchStore;
  now: () => number;
  signal?: AbortSignal;
}

/** Each service read once, in order; a service that fails is a view saying so. */
export async function readServices(
  api: PipeApi,
  serviceIds: readonly string[],
  o: ReadOptions,
): Promise<ServiceView[]> {
  return Promise.all(
    serviceIds.map(async (serviceId) => {
      const records = o.store
        ? (await loadService(o.store, o.organizationId, serviceId)).pipes
        : [];
      const observation = await readService(api, serviceId, o.signal);
      const ids = { organizationId: o.organizationId, serviceId };
      return viewService(ids, observation, records, o.now());
    }),
  );
}

async function readService(
  api: PipeApi,
  serviceId: string,
  signal: AbortSignal | undefined,
): Promise<ServiceObservation> {
  try {
    return await readPipesOf(api, serviceId, 'metrics', { signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    const message = (error as Error).message;
    return isServiceIdle(error) ? { kind: 'idle', message } : { kind: 'failed', message };
  }
}

interface LocatedPipe {
  serviceId: string;
  pipe: Pipe;
  sourceKind: string | undefined;
}

/**
 * A pipe by id, or by a name only one pipe of these services has (one listing per service). An
 * idle service cannot be listed (nor its pipes commanded) without waking it: it is skipped, and
 * named when the pipe is not found elsewhere.
 */
export async function locatePipe(
  api: Pick<PipeApi, 'listPipes'>,
  serviceIds: readonly string[],
  ref: string,
  signal?: AbortSignal,
): Promise<LocatedPipe> {
  const named: LocatedPipe[] = [];
  const idle: string[] = [];
  for (const serviceId of serviceIds) {
    let pipes: Pipe[];
    try {
      pipes = await api.listPipes(serviceId, { signal });
    } catch (error) {
      if (!isServiceIdle(error)) throw error;
      idle.push(serviceId);
      continue;
    }
    const located = (pipe: Pipe) => ({ serviceId, pipe, sourceKind: sourceKindOfPipe(pipe) });
    const byId = pipes.find((p) => p.id === ref);
    if (byId) return located(byId);
    named.push(...pipes.filter((p) => p.name === ref).map(located));
  }
  if (named.length === 1) return named[0];
  const searched = serviceIds.filter((id) => !idle.includes(id));
  const where = `service${searched.length === 1 ? '' : 's'} ${searched.join(', ') || '(none)'}`;
  const asleep = idle.length
    ? `; idle, so not searched (pipe commands need it running): ${idle.join(', ')}`
    : '';
  if (named.length === 0) throw new PipeNotFoundError(`no pipe "${ref}" in ${where}${asleep}`);
  const ids = named.map((n) => n.pipe.id).join(', ');
  throw new PipeNotFoundError(
    `${named.length} pipes are named "${ref}" in ${where}: use an id (${ids})`,
  );
}

export class PipeNotFoundError extends CloudOpsError {
  override name = 'PipeNotFoundError';
}

/** Whether a command can change anything, said before calling (API-FACTS "Pipes"). */
/** API-FACTS "Pipes": resync is for Postgres and MySQL pipes (not every batch-numbering source). */
const RESYNC_SOURCES: ReadonlySet<string> = new Set(['postgres', 'mysql']);

type CommandCheck =
  | { kind: 'call' }
  /** Already where the command leads: nothing to do, not a failure. */
  | { kind: 'done'; message: string }
  | { kind: 'refused'; message: string };

export function checkCommand(
  command: PipeStateCommand,
  pipe: { state: string; sourceKind?: string },
): CommandCheck {
  const state = pipe.state;
  switch (command) {
    case 'start':
      if (state === 'Running') return { kind: 'done', message: 'already running' };
      if (state === 'Stopped' || state === 'Failed') return { kind: 'call' };
      return {
        kind: 'refused',
        message: `a pipe starts only from Stopped or Failed; this one is ${state}`,
      };
    case 'stop':
      if (state === 'Stopped') return { kind: 'done', message: 'already stopped' };
      if (state === 'Stopping') return { kind: 'done', message: 'already stopping' };
      return { kind: 'call' };
    case 'resync':
      if (pipe.sourceKind && RESYNC_SOURCES.has(pipe.sourceKind)) return { kind: 'call' };
      return {
        kind: 'refused',
        message: `resync is for postgres and mysql pipes only; this one reads from ${pipe.sourceKind ?? 'an unknown source'}`,
      };
  }
}

/**
 * Send the command; `state` is the pipe's state in the answer (absent when the service found it
 * already there: the client reads "already running" / "already stopped" as done).
 */
export async function sendCommand(
  api: Pick<PipeApi, 'pipeStateCommand'>,
  target: LocatedPipe,
  command: PipeStateCommand,
  signal?: AbortSignal,
): Promise<{ state?: string }> {
  const answer = await api.pipeStateCommand(target.serviceId, target.pipe.id, command, { signal });
  const state = (answer as { state?: unknown } | undefined)?.state;
  return typeof state === 'string' ? { state } : {};
}
