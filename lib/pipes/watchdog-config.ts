/** The watchdog's configuration (validated once; every default is stated here). */
import * as z from 'zod/mini';
import { UNIT_MS } from '../duration';
import { safeInteger } from '../schemas/builders';
import { parseOrThrow } from '../format-issues';
import { deliveryLimitsSchema } from '../watch/ledger';
import { policySchema } from './decide';
import { progressPolicySchema } from './progress';

/**
 * `z.prefault(schema, {})`: absent, the member is what `schema` makes of `{}` (its own
 * defaults); zod's Prefault class would cost the consumer's bundle 0.4 KiB for this.
 */
function withDefaults<T extends z.ZodMiniType<unknown, object>>(schema: T) {
  return z._default(schema, () => schema.parse({}) as z.util.NoUndefined<z.output<T>>);
}

const watchdogConfigSchema = z.lazy(() =>
  z.strictObject({
    organizationId: z.string().check(z.minLength(1)),
    serviceIds: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
    /** Only these pipe ids (all when absent). */
    includePipes: z.optional(z.array(z.string().check(z.minLength(1)))),
    excludePipes: z._default(z.array(z.string().check(z.minLength(1))), []),
    policy: withDefaults(policySchema),
    /** Progress from the metrics endpoint: stalled, quiet, erroring. */
    progress: withDefaults(progressPolicySchema),
    /** The metrics endpoint not served: list the pipes instead, and ask the metrics again after this. */
    metricsRetryMs: z._default(z.number().check(safeInteger(), z.positive()), 24 * UNIT_MS.h),
    /** Notify after this many consecutive runs that could not list a service. */
    selfWatchAfterFailures: z._default(z.number().check(safeInteger(), z.positive()), 3),
    autoRestart: withDefaults(
      z.strictObject({
        enabled: z._default(z.boolean(), false),
        /** At most this many start attempts per pipe inside `windowMs`. */
        maxAttempts: z._default(z.number().check(safeInteger(), z.positive()), 3),
        windowMs: z._default(z.number().check(safeInteger(), z.positive()), UNIT_MS.h),
      }),
    ),
    /** A run's claim on pending notifications expires after this (a crashed run's are retaken). */
    leaseMs: z._default(z.number().check(safeInteger(), z.positive()), 5 * 60_000),
    delivery: withDefaults(deliveryLimitsSchema),
  }),
);
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
