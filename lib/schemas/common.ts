import * as z from 'zod/mini';
import { isoDatetime, uuidString, withFallback } from './builders';

/** RFC 4122 UUID of any version (ids in paths and records). */
export const uuid = /* @__PURE__ */ z.lazy(() => uuidString());

/** ISO-8601 date-time as the service writes it (offset or `Z`). */
export const isoDateTime = /* @__PURE__ */ z.lazy(() => isoDatetime({ offset: true }));

/**
 * `expireAt` on the wire: absent, null or empty all mean "never expires" (API-FACTS).
 * Parsed to `string | null` so callers test one value.
 */
export const expiry = /* @__PURE__ */ z.lazy(() =>
  z.pipe(
    z.optional(z.union([isoDateTime, z.literal(''), z.null()])),
    z.transform((value) => (value ? value : null)),
  ),
);

/*
 * Tolerant reading (API-FACTS, "The service as it stands today"): response schemas are loose
 * objects (unknown fields pass), fields we use accept the service's real nullability, and a
 * field we do not use can never fail a parse.
 */

/**
 * A response field we only display or pass on: a value of the wrong shape, or null, reads as
 * absent instead of failing the whole answer.
 */
export function lenient<T extends z.ZodMiniType>(schema: T) {
  return withFallback(z.optional(schema), undefined);
}

/** Like {@link lenient}, but keeps null (for fields where null has a meaning, e.g. "unset"). */
export function lenientNullable<T extends z.ZodMiniType>(schema: T) {
  return withFallback(z.nullish(schema), undefined);
}

/**
 * A field that may arrive under either name: the current service's or the spec's. `names`
 * maps the name we read to its other spellings; the read name wins when both are present.
 * E.g. `aliased(schema, { dashboardId: ['dashboard'] })`.
 */
export function aliased<T extends z.ZodMiniType>(
  schema: T,
  names: Readonly<Record<string, readonly string[]>>,
) {
  return z.pipe(
    z.transform((raw) => {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
      const record = raw as Record<string, unknown>;
      let out: Record<string, unknown> | undefined;
      for (const [name, others] of Object.entries(names)) {
        if (record[name] !== undefined && record[name] !== null) continue;
        const other = others.find((o) => record[o] !== undefined && record[o] !== null);
        if (other === undefined) continue;
        out ??= { ...record };
        out[name] = record[other];
      }
      return out ?? raw;
    }),
    schema,
  );
}

/**
 * A success envelope with its payload under `key`: management `{ status, requestId, result }`,
 * observability `{ data }`. Only the payload is read; the other fields are diagnostics, passed
 * through unchecked so they never fail a parse (and cost no schema of their own).
 */
export function envelopeOf<T extends z.ZodMiniType>(key: 'result' | 'data', payload: T) {
  return z.looseObject({ [key]: payload });
}

/** Splits `"BAD_REQUEST: pipe must be paused"` into code and message. */
export function splitErrorText(text: string): { code: string | undefined; message: string } {
  const match = /^([A-Z][A-Z0-9_]*):\s*(.*)$/s.exec(text);
  return match ? { code: match[1], message: match[2] ?? '' } : { code: undefined, message: text };
}
