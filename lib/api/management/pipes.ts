import * as z from 'zod/mini';
import {
  pipe,
  pipeSettings,
  pipeStateCommandBody,
  type Pipe,
  type PipeSettings,
  type PipeStateCommand,
} from '../../schemas/pipe';
import { ApiError, asServiceIdle } from '../errors';
import type { ApiRequest, CallOptions } from '../http';
import * as P from './paths';
import { validateBody } from '../validate-body';
import type { ManagementConnection } from './connection';

/** What a state command returns is undocumented: the pipe record or nothing. */
const pipeStateResult = z.optional(
  z.pipe(
    z.union([pipe, z.null(), z.strictObject({})]),
    z.transform((value): Pipe | undefined =>
      value && 'id' in value ? (value as Pipe) : undefined,
    ),
  ),
);

/** The 400 texts that mean "already there": `pipe is already running`, `Current state: Stopped`. */
const ALREADY: Partial<Record<PipeStateCommand, RegExp>> = {
  start: /already running|current state:\s*running\b/i,
  stop: /already stopped|current state:\s*(stopped|stopping)\b/i,
};

function alreadyInState(error: unknown, command: PipeStateCommand): boolean {
  const pattern = ALREADY[command];
  return (
    pattern !== undefined &&
    error instanceof ApiError &&
    error.status === 400 &&
    pattern.test(error.apiMessage ?? '')
  );
}

export type PipeOperations = ReturnType<typeof pipeOperations>;

/** Pipes (spec 4.1, 4.2 and API-FACTS extras). */
export function pipeOperations({ organizationId: org, call, logger }: ManagementConnection) {
  /** Pipe calls on an idle service answer 424: typed, so callers can report "idle" and go on. */
  const pipeCall = async <T>(serviceId: string, req: ApiRequest<T>, opts?: CallOptions) => {
    try {
      return await call(req, opts);
    } catch (error) {
      throw asServiceIdle(error, serviceId);
    }
  };
  return {
    async getPipe(serviceId: string, pipeId: string, opts?: CallOptions): Promise<Pipe> {
      return pipeCall(
        serviceId,
        { method: 'GET', path: P.pipe(await org(), serviceId, pipeId), schema: pipe },
        opts,
      );
    },
    async getPipeSettings(
      serviceId: string,
      pipeId: string,
      opts?: CallOptions,
    ): Promise<PipeSettings> {
      return pipeCall(
        serviceId,
        {
          method: 'GET',
          path: P.pipeSettings(await org(), serviceId, pipeId),
          schema: pipeSettings,
        },
        opts,
      );
    },
    async listPipes(serviceId: string, opts?: CallOptions): Promise<Pipe[]> {
      return pipeCall(
        serviceId,
        { method: 'GET', path: P.pipes(await org(), serviceId), schema: z.array(pipe) },
        opts,
      );
    },
    async deletePipe(serviceId: string, pipeId: string, opts?: CallOptions): Promise<void> {
      return pipeCall(
        serviceId,
        { method: 'DELETE', path: P.pipe(await org(), serviceId, pipeId), schema: null },
        opts,
      );
    },
    /**
     * start | stop | resync; resolves to the pipe record when the server returns one.
     * Idempotent: a start that finds the pipe already running (say, our own earlier attempt
     * whose answer was lost) and a stop that finds it stopped succeed with no record.
     */
    async pipeStateCommand(
      serviceId: string,
      pipeId: string,
      command: PipeStateCommand,
      opts?: CallOptions,
    ): Promise<Pipe | undefined> {
      const path = P.pipeState(await org(), serviceId, pipeId);
      const body = validateBody(pipeStateCommandBody, { command }, 'PATCH', path);
      try {
        return await pipeCall(
          serviceId,
          { method: 'PATCH', path, body, schema: pipeStateResult },
          opts,
        );
      } catch (error) {
        if (alreadyInState(error, command)) {
          logger?.info('pipe already in the requested state', {
            serviceId,
            pipeId,
            command,
          });
          return undefined;
        }
        throw error;
      }
    },
  };
}
