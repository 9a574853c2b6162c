import { pipeSourceKind, pipeStateCommandBody } from '../../lib/schemas';
import type { Pipe } from '../../lib/schemas';
import { ApiError, badRequest, notFound, validateBody } from '../errors';
import { settleFlow } from '../metrics/flow';
import { route } from '../router';
import type { Route } from '../router';
import type { ManagementHandler, ManagementRequest } from './context';

const SERVICE = '/v1/organizations/:organizationId/services/:serviceId';

function findPipe(req: ManagementRequest): Pipe {
  const pipe = req.store.pipe(req.params.pipeId);
  if (!pipe || pipe.serviceId !== req.params.serviceId)
    throw notFound(`pipe ${req.params.pipeId} not found`);
  return pipe;
}

const list: ManagementHandler = {
  admin: false,
  run: (req) => req.store.state.pipes.filter((p) => p.serviceId === req.params.serviceId),
};

const get: ManagementHandler = { admin: false, run: (req) => findPipe(req) };

const settings: ManagementHandler = { admin: false, run: (req) => findPipe(req).settings ?? {} };

const remove: ManagementHandler = {
  admin: false,
  run(req) {
    const pipe = findPipe(req);
    req.store.state.pipes = req.store.state.pipes.filter((p) => p.id !== pipe.id);
    req.store.changed();
    return undefined;
  },
};

/** Next state for a command, or the 400 message the real service gives. */
function transition(pipe: Pipe, command: 'start' | 'stop' | 'resync'): string {
  const state = pipe.state;
  switch (command) {
    case 'start':
      if (state === 'Running') throw badRequest('pipe is already running');
      if (state !== 'Stopped' && state !== 'Failed') {
        throw badRequest(
          `pipe can be started only from Stopped or Failed. Current state: ${state}`,
        );
      }
      return 'Running';
    case 'stop':
      if (state === 'Stopped' || state === 'Stopping') throw badRequest('pipe is already stopped');
      return 'Stopped';
    case 'resync':
      if (pipeSourceKind(pipe) !== 'postgres')
        throw badRequest('resync is allowed only for database (postgres) pipes');
      return 'Resync';
  }
}

const command: ManagementHandler = {
  admin: false,
  run(req) {
    const pipe = findPipe(req);
    const body = validateBody(pipeStateCommandBody, req.body);
    const next = transition(pipe, body.command);
    // The totals so far moved under the old state; from now on the new state's rates apply.
    settleFlow(req.store.state, pipe, req.now);
    pipe.state = next;
    pipe.updatedAt = new Date(req.now).toISOString();
    req.store.changed();
    return pipe;
  },
};

/** An idle service refuses every pipe call until it runs again (seen in practice, API-FACTS). */
function whenRunning(handler: ManagementHandler): ManagementHandler {
  return {
    admin: handler.admin,
    run(req) {
      if (req.store.service(req.params.serviceId)?.state === 'idle') {
        throw new ApiError(
          424,
          'FAILED_DEPENDENCY',
          'Pipe operations are allowed only when the service is running. Current state: idle',
        );
      }
      return handler.run(req);
    },
  };
}

export const pipeRoutes: Route<ManagementHandler>[] = [
  route('GET', `${SERVICE}/pipes`, whenRunning(list)),
  route('GET', `${SERVICE}/pipes/:pipeId`, whenRunning(get)),
  route('DELETE', `${SERVICE}/pipes/:pipeId`, whenRunning(remove)),
  route('GET', `${SERVICE}/pipes/:pipeId/settings`, whenRunning(settings)),
  route('PATCH', `${SERVICE}/pipes/:pipeId/state`, whenRunning(command)),
];
