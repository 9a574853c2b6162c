import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { ConfigError, ValidationError } from './errors';

// zod/mini ships without messages (every issue would read "Invalid input"); the messages users
// see are zod's English ones, set once here where issues become text.
z.config(en());

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

export interface ParseOrThrowOptions {
  /** Starts the message; default `<source> is invalid`. */
  intro?: string;
  /** Rewrites the formatted issues before they are shown (e.g. masks a secret's own strings). */
  scrub?: (issues: string[]) => string[];
  /**
   * `config`: a ConfigError listing one issue a line (settings, where a deployer reads them
   * down a list); default a ValidationError with the issues on one line.
   */
  as?: 'config';
}

/**
 * The one "parse, format issues, throw": the parsed value, or a ValidationError naming the
 * input's `source` (a file, request, event) and each field path, never the bad value.
 * Message: `<intro>: <issue>; <issue>`. A string for `options` is the intro.
 */
export function parseOrThrow<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  source: string,
  options: string | ParseOrThrowOptions = {},
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const {
    intro = `${source} is invalid`,
    scrub,
    as,
  } = typeof options === 'string' ? { intro: options } : options;
  const formatted = formatIssues(parsed.error.issues);
  const issues = scrub ? scrub(formatted) : formatted;
  if (as === 'config') throw new ConfigError(`${intro}:\n  ${issues.join('\n  ')}`);
  throw new ValidationError(`${intro}: ${issues.join('; ')}`, { source, issues });
}
