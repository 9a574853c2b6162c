/** Settings of the provision-alerts function beyond the connection (env, read through lib/config.ts). */
import * as z from 'zod';
import { readEnv } from '../../lib/config';

export const provisionAlertsEnv = z.object({
  /** DynamoDB table of the newest event version per alert owner (out-of-order protection). */
  CLOUDOPS_ALERTS_VERSION_TABLE: z.string().min(1).optional(),
});
export type ProvisionAlertsEnv = z.output<typeof provisionAlertsEnv>;

export function readProvisionAlertsEnv(
  env?: Record<string, string | undefined>,
): ProvisionAlertsEnv {
  return readEnv(provisionAlertsEnv, env);
}
