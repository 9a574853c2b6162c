/**
 * Where a watcher keeps its records and how it follows conditions, from env (parsed by
 * lib/config.ts's readEnv): the table (table-setting.ts), the reminder and flap policy. No notifier: a watcher
 * that notifies through its own list (the key sentinel) reads these without the registry
 * (settings.ts adds every notifier and routing). The names keep the `CLOUDOPS_WATCHDOG_` prefix
 * they had when the pipe watchdog was the only watcher.
 */
import * as z from 'zod/mini';
import { coercedNumber, safeInteger } from '../schemas/builders';
import type { ConditionPolicyInput } from './condition';
import { watchTableShape } from './table-setting';

export const envCount = /* @__PURE__ */ z.lazy(() =>
  coercedNumber().check(safeInteger(), z.positive()),
);
export const envMinutes = /* @__PURE__ */ z.lazy(() =>
  z.pipe(
    coercedNumber().check(z.positive()),
    z.transform((m) => Math.round(m * 60_000)),
  ),
);

export const watchRecordShape = {
  ...watchTableShape,
  CLOUDOPS_WATCHDOG_REMINDER_MINUTES: /* @__PURE__ */ z.optional(envMinutes),
  CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES: /* @__PURE__ */ z.optional(envCount),
  CLOUDOPS_WATCHDOG_FLAP_WINDOW_MINUTES: /* @__PURE__ */ z.optional(envMinutes),
  CLOUDOPS_WATCHDOG_FLAP_STABLE_MINUTES: /* @__PURE__ */ z.optional(envMinutes),
};
type WatchRecordEnv = z.output<z.ZodMiniObject<typeof watchRecordShape>>;

export interface WatchRecordSettings {
  tableName: string | undefined;
  policy: ConditionPolicyInput;
}

/** Drop undefined members so zod defaults apply. */
export function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The table and the condition policy of an env already parsed (its schema has the shape above). */
export function watchRecordSettingsOf(e: WatchRecordEnv): WatchRecordSettings {
  return {
    tableName: e.CLOUDOPS_WATCHDOG_TABLE,
    policy: defined({
      reminderIntervalMs: e.CLOUDOPS_WATCHDOG_REMINDER_MINUTES,
      flapMaxChanges: e.CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES,
      flapWindowMs: e.CLOUDOPS_WATCHDOG_FLAP_WINDOW_MINUTES,
      flapStableMs: e.CLOUDOPS_WATCHDOG_FLAP_STABLE_MINUTES,
    }),
  };
}
