/**
 * Turns one file's text into a plain value plus a way to find the line of any field path.
 *
 * Each file is parsed once: JSON by JSON.parse (after a bounded scan that finds syntax errors,
 * duplicate keys and over-deep nesting with their position, which JSON.parse cannot), YAML by
 * js-yaml (measured faster than `yaml` for this), imported on the first parse (./yaml.ts).
 * Positions (./locate.ts, js-yaml's node events) are worked out only when a problem has to be
 * located, i.e. never for a good file.
 *
 * Limits (issue 16 §8), each failure one line naming the file: size, nesting depth, and the
 * size a YAML file's aliases expand to (a billion-laughs file is a few hundred bytes).
 */
import { findJsonSyntaxError } from './json-syntax';
import { lazyLocator, type Locate } from './locate';
import type { FileIssue, SourceFile } from './types';
import { yamlParser } from './yaml';

export type { Locate } from './locate';

export interface ParsedFile {
  file: string;
  value?: unknown;
  /** The value may share nodes (YAML aliases): walks must visit each node once. */
  shared?: boolean;
  locate: Locate;
  issues: FileIssue[];
}

export const FILE_LIMITS = {
  /** Bytes of one file. */
  maxFileBytes: 1024 * 1024,
  /** Bytes (as JSON) a file's value may reach once its aliases are expanded. */
  maxExpandedBytes: 4 * 1024 * 1024,
  /** Objects/arrays inside one another (a dashboard file needs about 8). */
  maxDepth: 32,
} as const;

function isJsonFile(file: string): boolean {
  return file.toLowerCase().endsWith('.json');
}

const MiB = (n: number) => `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

export async function parseFile(source: SourceFile): Promise<ParsedFile> {
  const { file, text } = source;
  // Also for JSON: valid JSON is YAML, and positions come from js-yaml's node events.
  const yaml = await yamlParser();
  const locate = lazyLocator(text, yaml);
  const fail = (message: string, pos: { line?: number; column?: number } = {}): ParsedFile => ({
    file,
    locate,
    issues: [{ file, ...pos, path: '', message }],
  });

  // A UTF-16 unit is at most 3 UTF-8 bytes: short texts skip the exact count.
  const bytes =
    source.bytes ??
    (text.length * 3 <= FILE_LIMITS.maxFileBytes ? text.length : Buffer.byteLength(text, 'utf8'));
  if (bytes > FILE_LIMITS.maxFileBytes)
    return fail(`file is ${MiB(bytes)}, over the ${MiB(FILE_LIMITS.maxFileBytes)} limit`);

  let value: unknown;
  let shared = false;
  if (isJsonFile(file)) {
    const syntax = findJsonSyntaxError(text, FILE_LIMITS.maxDepth);
    if (syntax) {
      const where = lineOf(text, syntax.offset);
      return fail(syntax.json ? `JSON syntax: ${syntax.message}` : syntax.message, where);
    }
    value = JSON.parse(text) as unknown;
  } else {
    try {
      value = yaml.load(text, { schema: yaml.CORE_SCHEMA, filename: file });
    } catch (error) {
      if (error instanceof yaml.YAMLException) {
        const pos = error.mark ? { line: error.mark.line + 1, column: error.mark.column + 1 } : {};
        return fail(`YAML syntax: ${error.reason}`, pos);
      }
      // js-yaml recurses per nesting level: a stack overflow means absurdly deep nesting.
      if (error instanceof RangeError)
        return fail(`nesting deeper than ${FILE_LIMITS.maxDepth} levels`);
      throw error;
    }
    // Without an alias (`*name`) no node is shared, and a short text cannot expand past the
    // limit (a YAML byte is at most ~6 as JSON): only the depth needs a (cheap) walk.
    shared = text.includes('*');
    if (!shared && text.length * 6 <= FILE_LIMITS.maxExpandedBytes) {
      if (tooDeep(value, FILE_LIMITS.maxDepth))
        return fail(`nesting deeper than ${FILE_LIMITS.maxDepth} levels`);
    } else {
      const size = measure(value);
      if (size.depth > FILE_LIMITS.maxDepth)
        return fail(`nesting deeper than ${FILE_LIMITS.maxDepth} levels`);
      if (size.bytes > FILE_LIMITS.maxExpandedBytes)
        return fail(
          `aliases expand this file to more than the ${MiB(FILE_LIMITS.maxExpandedBytes)} limit`,
        );
    }
  }
  return { file, value, ...(shared ? { shared } : {}), locate, issues: [] };
}

/** True when objects/arrays nest deeper than `max` (recursion stops there: the stack is safe). */
function tooDeep(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (tooDeep(v, max - 1)) return true;
    return false;
  }
  for (const k in value) if (tooDeep((value as Record<string, unknown>)[k], max - 1)) return true;
  return false;
}

/**
 * Depth and JSON size of a YAML value, counting a shared (aliased) node every time it is
 * used, in time linear in the number of distinct nodes (memoised), without recursion on
 * the JS stack. Stops early once over a limit.
 */
function measure(root: unknown): { depth: number; bytes: number } {
  const memo = new Map<object, { depth: number; bytes: number }>();
  const tooDeep = { depth: FILE_LIMITS.maxDepth + 1, bytes: 0 };
  const tooBig = { depth: 0, bytes: FILE_LIMITS.maxExpandedBytes + 1 };
  type Frame = { node: object; children: unknown[]; keyBytes: number; i: number };
  const leaf = (v: unknown): number =>
    typeof v === 'string' ? v.length + 2 : typeof v === 'number' ? String(v).length : 5;
  if (root === null || typeof root !== 'object') return { depth: 0, bytes: leaf(root) };

  const frame = (node: object): Frame => {
    const isArray = Array.isArray(node);
    const children = isArray ? (node as unknown[]) : Object.values(node);
    const keyBytes = isArray ? 0 : Object.keys(node).reduce((n, k) => n + k.length + 4, 0);
    return { node, children, keyBytes, i: 0 };
  };
  const stack: Frame[] = [frame(root)];
  const acc: { depth: number; bytes: number }[] = [{ depth: 0, bytes: 0 }];
  while (stack.length > 0) {
    if (stack.length > FILE_LIMITS.maxDepth) return tooDeep;
    const top = stack[stack.length - 1];
    const sum = acc[acc.length - 1];
    if (top.i < top.children.length) {
      const child = top.children[top.i++];
      if (child === null || typeof child !== 'object') {
        sum.bytes += leaf(child) + 1;
      } else {
        const known = memo.get(child);
        if (known) {
          sum.bytes += known.bytes + 1;
          sum.depth = Math.max(sum.depth, known.depth);
        } else {
          stack.push(frame(child));
          acc.push({ depth: 0, bytes: 0 });
        }
      }
      if (sum.bytes > FILE_LIMITS.maxExpandedBytes) return tooBig;
      continue;
    }
    stack.pop();
    acc.pop();
    const done = { depth: sum.depth + 1, bytes: sum.bytes + top.keyBytes + 2 };
    memo.set(top.node, done);
    const parent = acc[acc.length - 1];
    if (!parent) return done;
    parent.bytes += done.bytes + 1;
    parent.depth = Math.max(parent.depth, done.depth);
    if (parent.bytes > FILE_LIMITS.maxExpandedBytes) return tooBig;
  }
  return tooBig;
}

/** Line and column of a field path in a file's text (for problems found after parsing). */
export async function locateIn(
  text: string,
  path: readonly PropertyKey[],
): Promise<{ line?: number; column?: number }> {
  return lazyLocator(text, await yamlParser())(path);
}

function lineOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

const VAR = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The `${NAME}`s a text uses (not `$${NAME}`, which writes `${NAME}` itself). */
export function variablesIn(text: string): string[] {
  return [...text.matchAll(VAR)].flatMap((m) => (m[1] ? [] : [m[2]]));
}

/**
 * `${NAME}` in any string value of the parsed file is replaced from `vars` (explicit: never
 * the whole environment, so a file cannot pull a secret into a dashboard). `$${` escapes a
 * literal `${`. Substituting into parsed values (not the text) means a placeholder works
 * anywhere a string scalar does, flow maps included, and a value can never break the syntax
 * (a `}` or a quote in it) nor inject fields.
 *
 * Replaces in place (the value is the caller's fresh parse; no copy of every file). `shared`
 * (YAML aliases) makes each node visited once, so a substituted value is never substituted again.
 */
export function substituteVars(
  value: unknown,
  vars: Readonly<Record<string, string>>,
  onMissing: (path: PropertyKey[], name: string) => void,
  shared = true,
): unknown {
  const path: PropertyKey[] = [];
  const replace = (text: string): string =>
    text.replace(VAR, (whole, escape: string, name: string) => {
      if (escape) return whole.slice(1);
      const replacement = vars[name];
      if (replacement === undefined) {
        onMissing([...path], name);
        return whole;
      }
      return replacement;
    });
  if (typeof value === 'string') return value.includes('$') ? replace(value) : value;
  const seen = shared ? new Set<object>() : undefined;
  // One slot of a parent: a string is replaced in place, an object or array walked into.
  const visit = (slots: Record<PropertyKey, unknown>, k: PropertyKey): void => {
    const v = slots[k];
    if (typeof v === 'string') {
      if (!v.includes('$')) return;
      path.push(k);
      slots[k] = replace(v);
      path.pop();
    } else if (v !== null && typeof v === 'object') {
      path.push(k);
      walk(v);
      path.pop();
    }
  };
  const walk = (node: object): void => {
    if (seen) {
      if (seen.has(node)) return;
      seen.add(node);
    }
    const slots = node as Record<PropertyKey, unknown>;
    if (Array.isArray(node)) for (let i = 0; i < node.length; i++) visit(slots, i);
    else for (const k in slots) visit(slots, k);
  };
  if (value !== null && typeof value === 'object') walk(value);
  return value;
}
