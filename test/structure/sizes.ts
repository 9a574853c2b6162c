/**
 * Size limits that keep pieces readable: a function handler file (parse the event, wire deps, call
 * lib) and a lib function (a nested closure counts inside its parent: a 280-line function of
 * closures is one long function).
 */
import ts from 'typescript';
import { parseSource, type SourceTree } from './source-tree';

export const MAX_HANDLER_FILE_LINES = 80;
export const MAX_LIB_FUNCTION_LINES = 120;

export interface FunctionSize {
  /** `file#name`: the name a reader searches for (method as `Class.method`). */
  readonly id: string;
  readonly lines: number;
}

/** Lines of a file as an editor counts them (a final newline ends the last line). */
export function lineCount(text: string): number {
  return text.replace(/\n$/, '').split('\n').length;
}

const isFunctionLike = (node: ts.Node): node is ts.SignatureDeclaration & { body?: ts.Node } =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node);

/** The name a function goes by: its own, the variable or property it is assigned to, or its line. */
function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const own = (node as { name?: ts.Node }).name;
  const parent = node.parent;
  const className = ts.isClassLike(parent) && parent.name ? `${parent.name.getText(source)}.` : '';
  if (ts.isConstructorDeclaration(node)) return `${className}constructor`;
  if (own && (ts.isIdentifier(own) || ts.isStringLiteral(own) || ts.isPrivateIdentifier(own)))
    return `${className}${own.text}`;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) &&
    ts.isIdentifier(parent.name)
  )
    return parent.name.text;
  const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  return `(anonymous, line ${line})`;
}

/** Every function of a file with its length in lines, outermost first. */
export function functionSizes(file: string, text: string): FunctionSize[] {
  const source = parseSource(file, text);
  const sizes: FunctionSize[] = [];
  const visit = (node: ts.Node) => {
    if (isFunctionLike(node) && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      sizes.push({ id: `${file}#${nameOf(node, source)}`, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sizes;
}

export interface Oversized {
  /** What is too long, as the ratchet list names it (its length changes with every edit). */
  readonly piece: string;
  readonly lines: number;
  readonly limit: number;
}

/** Every handler file and lib function over its limit, sorted by piece. */
export function oversizedPieces(tree: SourceTree): Oversized[] {
  const found: Oversized[] = [];
  for (const [file, text] of tree) {
    const fileLines = lineCount(text);
    if (/^functions\/[^/]+\/handler\.ts$/.test(file) && fileLines > MAX_HANDLER_FILE_LINES)
      found.push({
        piece: `handler file ${file}`,
        lines: fileLines,
        limit: MAX_HANDLER_FILE_LINES,
      });
    if (!file.startsWith('lib/')) continue;
    for (const { id, lines } of functionSizes(file, text))
      if (lines > MAX_LIB_FUNCTION_LINES)
        found.push({ piece: `lib function ${id}`, lines, limit: MAX_LIB_FUNCTION_LINES });
  }
  return found.sort((a, b) => a.piece.localeCompare(b.piece));
}
