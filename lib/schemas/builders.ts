/**
 * Three zod/mini builders made from zod's classes, the same schemas at a fraction of the bundle:
 * esbuild keeps every member of a namespace reached through another one, so `z.iso.datetime`
 * brings all four ISO formats with their regexes, `z.coerce.number` the bigint and date
 * coercions too, and `z.catch` (which reaches `core.util` that way) the whole of zod's util
 * module, about 8 KiB. test/structure/function-bundles.test.ts keeps those out of the functions.
 */
import { _coercedNumber, _isoDateTime, type $constructor } from 'zod/v4/core';
import * as z from 'zod/mini';

/** `z.iso.datetime(params)`. */
export function isoDatetime(params?: { offset?: boolean }): z.ZodMiniISODateTime {
  return _isoDateTime(z.ZodMiniISODateTime, params);
}

/** `z.coerce.number()`: `Number(input)`, then the number checks. */
export function coercedNumber(): z.ZodMiniNumber<unknown> {
  return _coercedNumber(z.ZodMiniNumber);
}

/**
 * `z.catch(schema, value)`: `value` wherever `schema` fails. It lacks zod's constant-catch mark,
 * so `z.compile` (unused here) would treat it as a catch with a callback.
 */
export function withFallback<T extends z.ZodMiniType>(
  schema: T,
  value: z.output<T>,
): z.ZodMiniCatch<T> {
  const Catch = z.ZodMiniCatch as unknown as $constructor<z.ZodMiniCatch<T>>;
  return new Catch({ type: 'catch', innerType: schema, catchValue: () => value });
}
