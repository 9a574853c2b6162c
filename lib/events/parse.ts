/** Validates one raw event (a JSON text or a value) against a schema, naming the event and the field. */
import type * as z from 'zod/mini';
import { ValidationError } from '../errors';
import { parseOrThrow } from '../format-issues';

/**
 * `ref` names the event in the error (an SQS message id, `--file events.json[2]`). A bad
 * `detail-type` is reported as such rather than as every field of every known kind.
 */
export function parseEvent<S extends z.ZodMiniType>(
  schema: S,
  raw: unknown,
  ref: string,
): z.output<S> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new ValidationError(`event ${ref}: body is not JSON (${why})`, {
        source: ref,
        issues: ['(body): not JSON'],
      });
    }
  }
  return parseOrThrow(schema, value, ref, `event ${ref} is invalid`);
}
