/** The watchdog's configuration (validated once; every default is stated here). */
import * as z from 'zod';
import { parseOrThrow } from '../format-issues';
import { deliveryLimitsSchema } from '../watch/ledger';
import { policySchema } from './decide';
import { progressPolicySchema } from './progress';

const watchdogConfigSchema = z.strictObject({
  organizationId: z.string().min(1),
  serviceIds: z.array(z.string().min(1)).min(1),
  /** Only these pipe ids (all when absent). */
  includePipes: z.array(z.string().min(1)).optional(),
  excludePipes: z.array(z.string().min(1)).default([]),
  policy: policySchema.prefault({}),
  /** Progress from the metrics endpoint: stalled, quiet, erroring. */
  progress: progressPolicySchema.prefault({}),
  /** The metrics endpoint not served: list the pipes instead, and ask the metrics again after this. */
  metricsRetryMs: z
    .number()
    .int()
    .positive()
    .default(24 * 3_600_000),
  /** Notify after this many consecutive runs that could not list a service. */
  selfWatchAfterFailures: z.number().int().positive().default(3),
  autoRestart: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** At most this many start attempts per pipe inside `windowMs`. */
      maxAttempts: z.number().int().positive().default(3),
      windowMs: z.number().int().positive().default(3_600_000),
    })
    .prefault({}),
  /** A run's claim on pending notifications expires after this (a crashed run's are retaken). */
  leaseMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  delivery: deliveryLimitsSchema.prefault({}),
});
export type WatchdogConfigInput = z.input<typeof watchdogConfigSchema>;
export type WatchdogConfig = z.output<typeof watchdogConfigSchema>;

export function parseWatchdogConfig(input: WatchdogConfigInput): WatchdogConfig {
  return parseOrThrow(
    watchdogConfigSchema,
    input,
    'watchdog config',
    'invalid watchdog configuration',
  );
}
