/**
 * The repository's TypeScript sources as text, and the relative imports between them, read with
 * the TypeScript parser (no type checking: a whole tree parses in well under a second).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/** Repository-relative path (forward slashes) -> file text. */
export type SourceTree = ReadonlyMap<string, string>;

/** Every `.ts` file (declarations excluded) under the given top-level folders. */
export function readSourceTree(folders: readonly string[], root = REPO_ROOT): SourceTree {
  const tree = new Map<string, string>();
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(child);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        tree.set(child, readFileSync(path.join(root, child), 'utf8'));
      }
    }
  };
  for (const folder of folders) if (existsSync(path.join(root, folder))) walk(folder);
  return tree;
}

export function parseSource(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/**
 * The module specifiers a file imports: `import`, `import type`, `export … from` and dynamic
 * `import('…')` alike. A type-only import ties the files together as much as any other (a type
 * borrowed from a capability is a dependency on it), and a lazy import is still an import.
 */
export function importSpecifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The tree file a relative specifier names (`./x`, `./x.js`, `./x/index`), if it is one. */
export function resolveSpecifier(
  tree: SourceTree,
  from: string,
  specifier: string,
): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [base, `${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => tree.has(candidate));
}

export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** Every import from one tree file to another (packages and non-TypeScript files left out). */
export function importEdges(tree: SourceTree): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const [file, text] of tree) {
    const targets = new Set<string>();
    for (const specifier of importSpecifiers(parseSource(file, text))) {
      const target = resolveSpecifier(tree, file, specifier);
      if (target) targets.add(target);
    }
    for (const to of [...targets].sort()) edges.push({ from: file, to });
  }
  return edges;
}
