/**
 * The pipe list as a probe (the rotation's test call): the same request as pipes.ts's
 * listPipes, the same idle-service error, without the full pipe record's schema, so the
 * rotation function bundles neither that schema nor the other pipe operations.
 */
import { pipeProbeList, type PipeProbeItem } from '../../schemas/pipe-probe';
import { asServiceIdle } from '../errors';
import * as P from './paths';
import type { ManagementConnection } from './connection';
import type { PipeOperations } from './pipes';

export type PipeProbeOperations = ReturnType<typeof pipeProbeOperations>;

/** pipes.ts's listPipes, answering the narrow records. */
type ListPipes = (...args: Parameters<PipeOperations['listPipes']>) => Promise<PipeProbeItem[]>;

export function pipeProbeOperations({ organizationId: org, call }: ManagementConnection): {
  listPipes: ListPipes;
} {
  return {
    async listPipes(serviceId, opts) {
      const path = P.pipes(await org(), serviceId);
      try {
        return await call({ method: 'GET', path, schema: pipeProbeList }, opts);
      } catch (error) {
        throw asServiceIdle(error, serviceId);
      }
    },
  };
}
