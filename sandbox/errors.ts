import * as z from 'zod';
import { formatIssues } from '../lib/format-issues';
import type { Reply } from './http';

/** An API error; each surface renders it in its own body shape. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    /** Management error code (`BAD_REQUEST`), the `CODE:` prefix of the error text. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** An answer that is not in the surface's error shape (e.g. a plain-text `Not Found`). */
export class ReplyError extends Error {
  override name = 'ReplyError';
  constructor(readonly reply: Reply) {
    super(`reply ${reply.status}`);
  }
}

export const badRequest = (message: string) => new ApiError(400, 'BAD_REQUEST', message);
export const unauthorized = (message: string) => new ApiError(401, 'UNAUTHORIZED', message);
export const forbidden = (message: string) => new ApiError(403, 'FORBIDDEN', message);
export const notFound = (message: string) => new ApiError(404, 'NOT_FOUND', message);
export const conflict = (message: string) => new ApiError(409, 'CONFLICT', message);

/** Parses a body with a zod schema; failure names every bad field path. */
export function validateBody<T extends z.core.$ZodType>(schema: T, body: unknown): z.output<T> {
  const parsed = z.safeParse(schema, body);
  if (!parsed.success) {
    throw badRequest(`Body validation failed: ${formatIssues(parsed.error.issues).join('; ')}`);
  }
  return parsed.data;
}
