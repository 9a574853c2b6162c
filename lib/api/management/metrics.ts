import { metricsBody, readOrganizationMetrics, readServiceMetrics } from '../../metrics';
import type { ServiceReading } from '../../schemas/metrics';
import { asServiceIdle } from '../errors';
import type { CallOptions } from '../http';
import type { ApiPath } from '../paths';
import { textAnswer } from '../text-answer';
import * as P from './paths';
import type { ManagementConnection } from './connection';

export interface MetricsCallOptions extends CallOptions {
  /** `filtered_metrics=true|false`; omitted when undefined (what it drops is undocumented). */
  readonly filteredMetrics?: boolean;
}

function withFilter(path: ApiPath, filteredMetrics: boolean | undefined): ApiPath {
  if (filteredMetrics === undefined) return path;
  return { ...path, path: `${path.path}?filtered_metrics=${String(filteredMetrics)}` };
}

/**
 * The metrics endpoint (API-FACTS "Metrics endpoint"): Prometheus text, one request per service
 * (or one for the organization), under the same key and rate limit as every management call.
 * Reading metrics never wakes an idle service: it answers its service-info metric alone, which
 * reads as `observed: false`.
 */
export function metricsOperations({ organizationId: org, call }: ManagementConnection) {
  return {
    async getServiceMetrics(
      serviceId: string,
      { filteredMetrics, ...opts }: MetricsCallOptions = {},
    ): Promise<ServiceReading> {
      const path = withFilter(P.serviceMetrics(await org(), serviceId), filteredMetrics);
      const schema = metricsBody((samples) => readServiceMetrics(samples, serviceId));
      try {
        return await call({ method: 'GET', path, schema, answer: textAnswer }, opts);
      } catch (error) {
        throw asServiceIdle(error, serviceId);
      }
    },
    /** Every service of the organization in one request. */
    async getOrganizationMetrics({ filteredMetrics, ...opts }: MetricsCallOptions = {}): Promise<
      ServiceReading[]
    > {
      const path = withFilter(P.organizationMetrics(await org()), filteredMetrics);
      const schema = metricsBody(readOrganizationMetrics);
      return call({ method: 'GET', path, schema, answer: textAnswer }, opts);
    },
  };
}
