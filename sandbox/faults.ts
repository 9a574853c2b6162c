export const FAULT_KINDS = ['latency', '429', '500', 'html504', 'truncate', 'reset'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * Seeded random faults: each request whose "METHOD /path" matches `routes` (all requests when
 * absent) is faulted with probability `rate`, the kind drawn from `kinds`. The draw for a request
 * depends only on the seed, its route ("METHOD /pattern", ids left out) and how many requests on
 * that route came before it — not on what other routes did in between — so FAULT_SEED=n faults
 * the same requests on every run whose requests per route come in the same order.
 */
export interface FaultSpec {
  seed: number;
  rate: number;
  kinds: FaultKind[];
  /** Delay for the latency fault (default 300 ms). */
  latencyMs?: number;
  /** Regex (anchored) over "METHOD /path". */
  routes?: string;
}

interface FaultQueueItem {
  /** Regex (anchored) over "METHOD /path"; absent = any request. */
  route?: string;
  kind: FaultKind;
  /** How many matching requests get the fault (default 1). */
  count?: number;
  /** For the latency fault (default: the spec's latencyMs, else 300 ms). */
  latencyMs?: number;
}

export interface FaultController {
  set(spec: FaultSpec | string): void;
  /** Removes the random spec and every queued fault. */
  clear(): void;
  /** The next `count` requests matching `route` get fault `kind` (before any random fault). */
  queue(item: FaultQueueItem): void;
  current(): FaultSpec | undefined;
}

export interface FaultDecision {
  kind: FaultKind;
  latencyMs: number;
}

const DEFAULT_LATENCY_MS = 300;

/** mulberry32: small, fast, deterministic. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over the text: a stable 32-bit seed for one (seed, route, sequence) draw. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The two uniform draws of request number `sequence` (from 0) on `route` under `seed`. */
function faultDraws(seed: number, route: string, sequence: number): [number, number] {
  const random = mulberry32(fnv1a(`${seed}|${route}|${sequence}`));
  return [random(), random()];
}

/** Parses "seed=7,rate=0.2,kinds=500+html504+reset,latency=200,route=PUT /api/v2/.*" (route last: it may hold commas). */
export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = { seed: 1, rate: 0, kinds: [] };
  let rest = text.trim();
  const routeAt = rest.search(/(^|,)\s*routes?=/);
  if (routeAt >= 0) {
    const routePart = rest.slice(routeAt).replace(/^,?\s*routes?=/, '');
    spec.routes = routePart;
    rest = rest.slice(0, routeAt);
  }
  for (const part of rest.split(',').filter((p) => p.trim() !== '')) {
    const [name, value = ''] = part.split('=').map((s) => s.trim()) as [string, string?];
    if (name === 'seed') spec.seed = Number(value);
    else if (name === 'rate') spec.rate = Number(value);
    else if (name === 'kinds' || name === 'kind')
      spec.kinds = value.split('+').filter(Boolean) as FaultKind[];
    else if (name === 'latency' || name === 'latencyMs') spec.latencyMs = Number(value);
    else
      throw new Error(
        `fault spec: unknown field "${name}" (expected seed, rate, kinds, latency, route)`,
      );
  }
  return validateFaultSpec(spec);
}

function validateFaultSpec(spec: FaultSpec): FaultSpec {
  if (!Number.isInteger(spec.seed)) throw new Error('fault spec: seed must be an integer');
  if (!(spec.rate >= 0 && spec.rate <= 1))
    throw new Error('fault spec: rate must be between 0 and 1');
  if (!Array.isArray(spec.kinds)) throw new Error('fault spec: kinds must be a list');
  for (const kind of spec.kinds) {
    if (!FAULT_KINDS.includes(kind))
      throw new Error(
        `fault spec: unknown kind "${String(kind)}" (expected ${FAULT_KINDS.join(', ')})`,
      );
  }
  if (spec.rate > 0 && spec.kinds.length === 0)
    throw new Error('fault spec: kinds must not be empty when rate > 0');
  if (spec.latencyMs !== undefined && !(spec.latencyMs >= 0))
    throw new Error('fault spec: latencyMs must be >= 0');
  if (spec.routes !== undefined) anchored(spec.routes);
  return { ...spec, kinds: [...spec.kinds] };
}

function anchored(pattern: string): RegExp {
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch {
    throw new Error(`fault spec: route is not a valid regular expression: ${pattern}`);
  }
}

export class Faults implements FaultController {
  private spec: FaultSpec | undefined;
  private routes: RegExp | undefined;
  /** Requests seen per route since the spec was set. */
  private sequences = new Map<string, number>();
  private queued: { route?: RegExp; kind: FaultKind; left: number; latencyMs?: number }[] = [];

  constructor(initial?: FaultSpec | string) {
    if (initial !== undefined) this.set(initial);
  }

  set(spec: FaultSpec | string): void {
    const valid = typeof spec === 'string' ? parseFaultSpec(spec) : validateFaultSpec(spec);
    this.spec = valid;
    this.routes = valid.routes !== undefined ? anchored(valid.routes) : undefined;
    this.sequences = new Map();
  }

  clear(): void {
    this.spec = undefined;
    this.routes = undefined;
    this.sequences = new Map();
    this.queued = [];
  }

  queue(item: FaultQueueItem): void {
    if (!FAULT_KINDS.includes(item.kind))
      throw new Error(`fault queue: unknown kind "${String(item.kind)}"`);
    const count = item.count ?? 1;
    if (!Number.isInteger(count) || count < 1)
      throw new Error('fault queue: count must be a positive integer');
    this.queued.push({
      route: item.route !== undefined ? anchored(item.route) : undefined,
      kind: item.kind,
      left: count,
      ...(item.latencyMs !== undefined ? { latencyMs: item.latencyMs } : {}),
    });
  }

  current(): FaultSpec | undefined {
    return this.spec ? { ...this.spec, kinds: [...this.spec.kinds] } : undefined;
  }

  /**
   * Decides the fault for one request. `routeKey` is "METHOD /path" (what `routes` and queued
   * faults match); `sequenceKey` names the route for the draw ("METHOD /pattern", default
   * `routeKey`). `randomEligible` is false for requests only a queued fault or an explicit
   * `routes` pattern may hit (the Secrets Manager surface).
   */
  decide(
    routeKey: string,
    randomEligible = true,
    sequenceKey: string = routeKey,
  ): FaultDecision | undefined {
    const latencyMs = this.spec?.latencyMs ?? DEFAULT_LATENCY_MS;
    const index = this.queued.findIndex((q) => !q.route || q.route.test(routeKey));
    if (index >= 0) {
      const item = this.queued[index];
      if (--item.left === 0) this.queued.splice(index, 1);
      return { kind: item.kind, latencyMs: item.latencyMs ?? latencyMs };
    }
    const spec = this.spec;
    if (!spec || spec.rate <= 0) return undefined;
    if (this.routes ? !this.routes.test(routeKey) : !randomEligible) return undefined;
    const sequence = this.sequences.get(sequenceKey) ?? 0;
    this.sequences.set(sequenceKey, sequence + 1);
    const [hit, pick] = faultDraws(spec.seed, sequenceKey, sequence);
    if (hit >= spec.rate) return undefined;
    return { kind: spec.kinds[Math.floor(pick * spec.kinds.length)], latencyMs };
  }
}
