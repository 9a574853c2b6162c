import type * as z from 'zod';
import { ValidationError } from './errors';

/** `tiles[2].w: expected number, received string` — one line per zod issue, never the value. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = issue.path.length > 0 ? formatPath(issue.path) : '(root)';
    return `${path}: ${issue.message}`;
  });
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/**
 * The one "parse, format issues, throw": the parsed value, or a ValidationError naming the
 * input's `source` (a file, request, event) and each field path, never the bad value.
 * Message: `<intro>: <issue>; <issue>` (intro defaults to `<source> is invalid`).
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  source: string,
  intro = `${source} is invalid`,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = formatIssues(parsed.error.issues);
  throw new ValidationError(`${intro}: ${issues.join('; ')}`, { source, issues });
}
