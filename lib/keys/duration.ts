import * as z from 'zod/mini';
import { UNIT_MS } from '../duration';

type Unit = keyof typeof UNIT_MS;
const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/** 90 days in ms -> "90d": the largest unit that divides it (what the parser reads back). */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/** "90d", "36h", "15m", "30s", "500ms" -> milliseconds: more than zero, at most `maxMs`. */
export function durationUpTo(maxMs: number) {
  return z
    .pipe(
      z
        .string()
        .check(z.regex(DURATION, 'expected a duration such as 90d, 12h, 30m, 45s or 500ms')),
      z.transform((text) => {
        const [, amount, unit] = DURATION.exec(text) as unknown as [string, string, Unit];
        return Number(amount) * UNIT_MS[unit];
      }),
    )
    .check(
      z.refine((ms) => ms > 0, 'expected a duration greater than zero'),
      z.refine((ms) => ms <= maxMs, `expected at most ${formatDuration(maxMs)}`),
    );
}
