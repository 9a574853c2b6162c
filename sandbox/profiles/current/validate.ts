/** The service's validation messages: `Body validation failed: tiles.0.x: <msg>; <path>: <msg>`. */
import type * as z from 'zod';
import { badRequest } from '../../errors';

export type Issue = { path: string; message: string };

export function issuesOf(error: z.ZodError, prefix: readonly PropertyKey[] = []): Issue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path].map(String).join('.'),
    message: issue.message,
  }));
}

export function failure(kind: 'Body' | 'Query' | 'Params', issues: readonly Issue[]): Error {
  const text = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return badRequest(`${kind} validation failed: ${text}`);
}

export function parseOr400<T extends z.ZodType>(
  kind: 'Body' | 'Query',
  schema: T,
  value: unknown,
): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw failure(kind, issuesOf(parsed.error));
  return parsed.data;
}
