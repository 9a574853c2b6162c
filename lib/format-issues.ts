import type * as z from 'zod';

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
