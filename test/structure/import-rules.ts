/**
 * The layout's import rules, checked over an import graph:
 *
 * - `capabilities-apart`: a capability (lib/pipes, lib/dashboards, lib/keys) never imports another;
 * - `engines-below-capabilities`: the rest of lib (lib/watch, lib/alerts, lib/api, lib/schemas,
 *   lib/credentials, lib/events, the files at lib's top) never imports a capability;
 * - `lib-stands-alone`: lib never imports sandbox, cli, functions, cdk, bench or test;
 * - `sandbox-on-ground-floor`: the sandbox uses only lib/schemas and the files at lib's top (it
 *   models the service; it must not borrow the client's behaviour it is there to test);
 * - `no-circle`: no import circle anywhere in the checked tree.
 *
 * Each violation is one line naming the files and the rule, so a known one can be listed verbatim
 * in a ratchet list (see known-violations.ts).
 */
import type { ImportEdge } from './source-tree';

/**
 * Folder -> the capability it belongs to. lib/notify holds the watchdog's notifiers until they move
 * into the watch engine, so it counts as part of the pipes capability (nothing new may lean on it).
 */
export const CAPABILITY_FOLDERS: Readonly<Record<string, string>> = {
  'lib/pipes': 'pipes',
  'lib/notify': 'pipes',
  'lib/dashboards': 'dashboards',
  'lib/keys': 'keys',
};

export type ImportRule =
  | 'capabilities-apart'
  | 'engines-below-capabilities'
  | 'lib-stands-alone'
  | 'sandbox-on-ground-floor'
  | 'no-circle';

/** The capability a file belongs to; undefined for everything else (engines, outside lib). */
export function capabilityOf(file: string): string | undefined {
  const folder = file.split('/').slice(0, 2).join('/');
  return file.split('/').length > 2 ? CAPABILITY_FOLDERS[folder] : undefined;
}

const inLib = (file: string) => file.startsWith('lib/');
/** lib/schemas and the files directly in lib/ (config, log, redact, errors, …). */
const isGroundFloor = (file: string) =>
  file.startsWith('lib/schemas/') || file.split('/').length === 2;

/** The layering rule an import breaks, if any (circles are found over the whole graph). */
export function layerRuleBroken(edge: ImportEdge): ImportRule | undefined {
  if (edge.from.startsWith('sandbox/') && inLib(edge.to))
    return isGroundFloor(edge.to) ? undefined : 'sandbox-on-ground-floor';
  if (!inLib(edge.from)) return undefined;
  if (!inLib(edge.to)) return 'lib-stands-alone';
  const target = capabilityOf(edge.to);
  if (target === undefined) return undefined;
  const source = capabilityOf(edge.from);
  if (source === undefined) return 'engines-below-capabilities';
  return source === target ? undefined : 'capabilities-apart';
}

/** The strongly connected components with more than one file (or a file importing itself). */
function circles(edges: readonly ImportEdge[]): string[][] {
  const next = adjacency(edges);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Tarjan's algorithm; recursion depth is bounded by the longest import chain (tens of files).
  const connect = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of [...next.keys()].sort()) if (!index.has(file)) connect(file);
  return found;
}

function adjacency(edges: readonly ImportEdge[]): Map<string, string[]> {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to].sort());
    if (!next.has(to)) next.set(to, []);
  }
  return next;
}

/**
 * One shortest circle through the component's first file, as `a → b → a`: the line names the
 * files a reader has to untangle (a component of more than one circle still shows its core).
 */
function circlePath(component: readonly string[], edges: readonly ImportEdge[]): string[] {
  const members = new Set(component);
  const next = adjacency(edges.filter((e) => members.has(e.from) && members.has(e.to)));
  const start = component[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of next.get(file) ?? []) {
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0])!);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [...component, start];
}

/** Every violation of the rules, one line each, sorted. */
export function importRuleViolations(edges: readonly ImportEdge[]): string[] {
  const lines: string[] = [];
  for (const edge of edges) {
    const rule = layerRuleBroken(edge);
    if (rule) lines.push(`${rule}: ${edge.from} → ${edge.to}`);
  }
  for (const component of circles(edges)) {
    const path = circlePath(component, edges);
    const others = component.filter((file) => !path.includes(file));
    const tied = others.length > 0 ? `; also tied in: ${others.join(', ')}` : '';
    lines.push(`no-circle: ${path.join(' → ')}${tied}`);
  }
  return lines.sort();
}
