import * as z from 'zod';

/** RFC 4122 UUID of any version (ids in paths and records). */
export const uuid = z.uuid({ version: undefined });

/** ISO-8601 date-time as the service writes it (offset or `Z`). */
export const isoDateTime = z.iso.datetime({ offset: true });

/**
 * `expireAt` on the wire: absent, null or empty all mean "never expires" (API-FACTS).
 * Parsed to `string | null` so callers test one value.
 */
export const expiry = z
  .union([isoDateTime, z.literal(''), z.null()])
  .optional()
  .transform((value) => (value ? value : null));

/** Management API success envelope: `{ status, requestId, result }`. */
export function managementEnvelope<T extends z.ZodType>(result: T) {
  return z.looseObject({ status: z.number().int(), requestId: z.string(), result });
}

/** DELETE on the management API answers 200 with no `result`. */
export const managementEmptyEnvelope = z.looseObject({
  status: z.number().int(),
  requestId: z.string(),
  result: z.unknown().optional(),
});

/** Observability API success envelope: `{ data }`. */
export function observabilityEnvelope<T extends z.ZodType>(data: T) {
  return z.looseObject({ data });
}

/** Management API error body: `{ status, error: "<CODE>: <message>", requestId }`. */
export const managementErrorBody = z.looseObject({
  status: z.number().int(),
  error: z.string(),
  requestId: z.string().optional(),
});
export type ManagementErrorBody = z.infer<typeof managementErrorBody>;

/** Observability API error body: `{ message }` (401 is plain text, not this). */
export const observabilityErrorBody = z.looseObject({ message: z.string() });
export type ObservabilityErrorBody = z.infer<typeof observabilityErrorBody>;

/** Splits `"BAD_REQUEST: pipe must be paused"` into code and message. */
export function splitErrorText(text: string): { code: string | undefined; message: string } {
  const match = /^([A-Z][A-Z0-9_]*):\s*(.*)$/s.exec(text);
  return match ? { code: match[1], message: match[2] ?? '' } : { code: undefined, message: text };
}
