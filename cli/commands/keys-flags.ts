/** The flag values the keys subcommands share, checked before anything is read or written. */
import * as z from 'zod';
import { duration, SEVERITIES, type FindingSeverity } from '../../lib/keys';
import { UsageError } from '../args';

/** `--grace 7d`, `--wait 30s`; `0` too where `allowZero` (revoke's "no grace"). */
export function durationFlag(
  name: string,
  value: string | undefined,
  fallbackMs: number,
  allowZero = false,
): number {
  if (value === undefined) return fallbackMs;
  if (allowZero && /^0(ms|s|m|h|d)?$/.test(value)) return 0;
  const parsed = duration.safeParse(value);
  if (parsed.success) return parsed.data;
  const wanted = (parsed.error.issues[0]?.message ?? 'a duration').replace(/^expected /, '');
  throw new UsageError(`--${name} expects ${wanted}, got "${value}"`);
}

export function severityFlag(name: string, value: string | undefined): FindingSeverity | undefined {
  if (value === undefined) return undefined;
  const parsed = z.enum(SEVERITIES).safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(`--${name} expects ${SEVERITIES.join(', ')}, got "${value}"`);
}

/** A whole number of days, at least 1. */
export function daysFlag(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > 36_500)
    throw new UsageError(`--${name} expects a whole number of days (1 or more), got "${value}"`);
  return days;
}
