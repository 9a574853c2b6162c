/**
 * The key sentinel's settings and notifiers, apart from its entry so the stack reads them
 * without loading the function's clients at synth.
 */
import * as z from 'zod/mini';
import { envList } from '../config';
import { coercedNumber, safeInteger } from '../schemas/builders';
import { notifierEnvOf } from '../watch/notifiers/set';
import { snsNotifier } from '../watch/notifiers/sns';
import { watchTableShape } from '../watch/table-setting';
import { keyExpiryWarnDays, keyNamePrefix } from './shared-settings';

/**
 * Findings go to the topic, where the alarms go: the stack binds the sentinel to SNS alone
 * (cdk/constructs/key-rotation.ts binds these), so its bundle carries no other notifier.
 */
export const SENTINEL_NOTIFIERS = [snsNotifier] as const;

/** Variables of the watchers' notifiers and records (the sentinel reads those of its own list). */
export const WATCH_PREFIX = 'CLOUDOPS_WATCHDOG_';

/** One object of every variable it reads (spread shapes: z.extend would bring zod's extend). */
export const sentinelEnv = z.object({
  ...notifierEnvOf(SENTINEL_NOTIFIERS).shape,
  // Its table; no condition policy (reminders: CLOUDOPS_KEY_AUDIT_REMINDER_DAYS).
  ...watchTableShape,
  /** Every key secret of the stack, comma separated: described (tags), never read. */
  CLOUDOPS_KEY_SENTINEL_SECRET_IDS: z.optional(
    z.pipe(
      envList,
      z
        .array(z.string().check(z.minLength(1)))
        .check(z.minLength(1, 'expected at least one secret id')),
    ),
  ),
  /** The sentinel's own key (it lists keys and activities): the one key secret value it reads. */
  CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: z.optional(z.string().check(z.minLength(1))),
  /** High and medium findings are reminded after this many days; low ones are told once. */
  CLOUDOPS_KEY_AUDIT_REMINDER_DAYS: z._default(coercedNumber().check(z.positive(), z.lte(365)), 7),
  CLOUDOPS_KEY_AUDIT_UNUSED_DAYS: z._default(
    coercedNumber().check(safeInteger(), z.positive(), z.lte(3650)),
    90,
  ),
  /** The rotator's, read alike (lib/keys/config.ts): which keys are ours, and when they are overdue. */
  CLOUDOPS_KEY_NAME_PREFIX: keyNamePrefix,
  CLOUDOPS_KEY_EXPIRY_WARN_DAYS: keyExpiryWarnDays,
});
