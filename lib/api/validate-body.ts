import type * as z from 'zod';
import { ValidationError } from '../errors';
import { formatIssues } from '../format-issues';
import type { ApiPath } from './paths';

/** Checks a request body before it is sent; bad input names the request and each field. */
export function validateBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  method: string,
  path: ApiPath,
): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = formatIssues(parsed.error.issues);
  const request = `${method} ${path.route}`;
  throw new ValidationError(
    `invalid request body for ${request}: ${issues.join('; ')}`,
    request,
    issues,
  );
}
