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
