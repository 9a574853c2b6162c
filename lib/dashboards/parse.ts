/**
 * Turns one file's text into a plain value plus a way to find the line of any field path.
 * YAML and JSON both go through the `yaml` parser for positions (valid JSON is YAML); JSON's
 * verdict on syntax comes from JSON.parse, located by findJsonSyntaxError.
 */
import { isMap, isNode, LineCounter, parseDocument, type Document } from 'yaml';
import { findJsonSyntaxError } from './json-syntax';
import type { FileIssue, SourceFile } from './types';

export type Locate = (path: readonly PropertyKey[]) => { line?: number; column?: number };

export interface ParsedFile {
  file: string;
  value?: unknown;
  locate: Locate;
  issues: FileIssue[];
}

export function isJsonFile(file: string): boolean {
  return file.toLowerCase().endsWith('.json');
}

export function parseFile(source: SourceFile): ParsedFile {
  const { file, text } = source;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const locate = locator(doc, lineCounter);
  const issue = (offset: number, message: string): FileIssue => {
    const pos = lineCounter.linePos(offset);
    return { file, line: pos.line, column: pos.col, path: '', message };
  };

  if (isJsonFile(file)) {
    const syntax = findJsonSyntaxError(text);
    if (syntax) {
      const pos = lineOf(text, syntax.offset);
      return {
        file,
        locate,
        issues: [{ file, ...pos, path: '', message: `JSON syntax: ${syntax.message}` }],
      };
    }
    const duplicates = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY');
    if (duplicates.length > 0) {
      return {
        file,
        locate,
        issues: duplicates.map((e) => issue(e.pos[0], 'duplicate key in object')),
      };
    }
    return { file, value: JSON.parse(text) as unknown, locate, issues: [] };
  }

  if (doc.errors.length > 0) {
    const issues = doc.errors.map((e) =>
      issue(e.pos[0], `YAML syntax: ${e.message.split('\n')[0]}`),
    );
    return { file, locate, issues };
  }
  return { file, value: doc.toJS({ maxAliasCount: 100 }) as unknown, locate, issues: [] };
}

/** Line of the deepest node on the path that exists (a missing field points at its parent). */
function locator(doc: Document, lineCounter: LineCounter): Locate {
  return (path) => {
    for (let n = path.length; n >= 0; n--) {
      const part = path.slice(0, n);
      const node: unknown = n === 0 ? doc.contents : doc.getIn(part, true);
      // For a missing value under an existing key, the key itself is the better anchor.
      if (isNode(node) && node.range) {
        const pos = lineCounter.linePos(node.range[0]);
        return { line: pos.line, column: pos.col };
      }
      if (n > 0) {
        const parent: unknown = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
        if (isMap(parent)) {
          const pair = parent.items.find(
            (p) => isNode(p.key) && (p.key as { value?: unknown }).value === path[n - 1],
          );
          if (pair && isNode(pair.key) && pair.key.range) {
            const pos = lineCounter.linePos(pair.key.range[0]);
            return { line: pos.line, column: pos.col };
          }
        }
      }
    }
    return {};
  };
}

function lineOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/**
 * `${NAME}` in any string value is replaced from `vars` (explicit: never the whole
 * environment, so a file cannot pull a secret into a dashboard). `$${` escapes a literal `${`.
 */
export function substituteVars(
  value: unknown,
  vars: Readonly<Record<string, string>>,
  onMissing: (path: PropertyKey[], name: string) => void,
  path: PropertyKey[] = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(
      /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
      (whole, escape: string, name: string) => {
        if (escape) return whole.slice(1);
        const replacement = vars[name];
        if (replacement === undefined) {
          onMissing(path, name);
          return whole;
        }
        return replacement;
      },
    );
  }
  if (Array.isArray(value))
    return value.map((v, i) => substituteVars(v, vars, onMissing, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substituteVars(v, vars, onMissing, [...path, k])]),
    );
  }
  return value;
}
