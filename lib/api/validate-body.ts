import type * as z from 'zod/mini';
import { parseOrThrow } from '../format-issues';
import type { ApiPath } from './paths';

/** Checks a request body before it is sent; bad input names the request and each field. */
export function validateBody<S extends z.ZodMiniType>(
  schema: S,
  body: unknown,
  method: string,
  path: ApiPath,
): z.output<S> {
  const request = `${method} ${path.route}`;
  return parseOrThrow(schema, body, request, `invalid request body for ${request}`);
}
