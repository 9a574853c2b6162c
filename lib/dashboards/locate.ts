/**
 * Line and column of a field path in a YAML or JSON text (valid JSON is YAML), for problems
 * found after parsing. Uses js-yaml, the parser the files are read with, through its node
 * events: a second YAML parser only to keep positions would be most of the sync function's
 * bundle growth. Built on the first call only: good files never pay for it.
 */
import type { State } from './vendor/js-yaml-loader.mjs';
import type { YamlParser } from './yaml';

export type Locate = (path: readonly PropertyKey[]) => { line?: number; column?: number };

/** One node as js-yaml composed it: where its content starts and ends, what it holds. */
interface YamlNode {
  /** Where js-yaml started looking for it (before spaces, comments, tags). */
  open: number;
  start: number;
  end: number;
  kind: string | null;
  value: unknown;
  children: YamlNode[];
}

/** `yaml`: js-yaml, loaded by the caller (./yaml.ts). */
export function lazyLocator(text: string, yaml: YamlParser): Locate {
  let root: YamlNode | undefined | null = null;
  let lines: number[] | undefined;
  return (path) => {
    if (root === null) root = nodeTree(text, yaml);
    if (!root) return {};
    lines ??= lineStarts(text);
    return position(lines, nodeAt(text, root, path).start);
  };
}

/** The node tree of a text, from js-yaml's open/close events; undefined if it does not load. */
function nodeTree(text: string, yaml: YamlParser): YamlNode | undefined {
  const top: YamlNode = { open: 0, start: 0, end: 0, kind: null, value: undefined, children: [] };
  const stack = [top];
  const listener = (event: string, state: State) => {
    if (event === 'open') {
      stack.push({ ...top, open: state.position, children: [] });
      return;
    }
    const node = stack.pop()!;
    node.kind = state.kind ?? null;
    node.value = state.result as unknown;
    node.end = state.position;
    node.start = contentStart(text, node.open);
    // js-yaml tries a block mapping first: one that found a lone flow node only wraps it.
    const only = node.children.length === 1 ? node.children[0] : undefined;
    const wrapped = only && only.kind === node.kind && only.value === node.value;
    stack[stack.length - 1].children.push(wrapped ? only : node);
  };
  try {
    // json: a duplicate key (already reported) must not hide every other position.
    yaml.load(text, { schema: yaml.CORE_SCHEMA, json: true, listener });
  } catch {
    return undefined;
  }
  return top.children.find(hasContent);
}

/** An empty node (a key with no value, the end of a mapping) has no content to point at. */
const hasContent = (node: YamlNode) => node.end > node.start;

/** Offset of a node's content at or after `from`: past spaces, line breaks, comments, tags, anchors. */
function contentStart(text: string, from: number): number {
  let i = from;
  const skipWhile = (test: (c: string) => boolean) => {
    while (i < text.length && test(text[i])) i++;
  };
  for (;;) {
    skipWhile((c) => c === ' ' || c === '\t' || c === '\n' || c === '\r');
    if (text[i] === '#') skipWhile((c) => c !== '\n');
    else if (text[i] === '!' || text[i] === '&') skipWhile((c) => !/\s/.test(c));
    else return i;
  }
}

/**
 * The node at `path`, or the deepest one on the way that exists: a missing field points at
 * its parent, a key without a value at the key.
 */
function nodeAt(text: string, root: YamlNode, path: readonly PropertyKey[]): YamlNode {
  let node = root;
  for (const part of path) {
    let next: YamlNode | undefined;
    if (node.kind === 'sequence') {
      next = itemsOf(node)[Number(part)];
    } else if (node.kind === 'mapping') {
      const pair = pairsOf(text, node).find(([key]) => String(key.value) === String(part));
      if (pair && !pair[1]) return pair[0];
      next = pair?.[1];
    }
    if (!next) return node;
    node = next;
  }
  return node;
}

/** [key, value] nodes of a mapping; the value is undefined when the key has none. */
function pairsOf(text: string, map: YamlNode): [YamlNode, YamlNode | undefined][] {
  const pairs: [YamlNode, YamlNode | undefined][] = [];
  const nodes = map.children;
  for (let i = 0; i < nodes.length && hasContent(nodes[i]); i++) {
    const key = nodes[i];
    const next = nodes[i + 1];
    // A value is composed after its key's `:`; a flow-map key without one has no value node.
    if (next && /^\s*:/.test(text.slice(key.end, next.open))) {
      pairs.push([key, hasContent(next) ? next : undefined]);
      i++;
    } else pairs.push([key, undefined]);
  }
  return pairs;
}

/** Item nodes of a sequence by index; an empty `-` item has no node (undefined). */
function itemsOf(seq: YamlNode): (YamlNode | undefined)[] {
  const values = Array.isArray(seq.value) ? (seq.value as unknown[]) : [];
  let next = 0;
  return values.map((value) => {
    const node = seq.children[next];
    if (!node || node.value !== value) return undefined;
    next++;
    return node;
  });
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line and column of an offset (binary search over the line starts). */
function position(starts: readonly number[], offset: number) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}
