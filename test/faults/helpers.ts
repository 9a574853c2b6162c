/**
 * Shared set-up for the fault suite: a sandbox on a frozen base clock (time moves only when a
 * test advances it, so two runs see the same timestamps), clients with a short per-attempt
 * timeout (the latency fault outlasts it) and the seeded fault spec for one rate.
 */
import { createHash } from 'node:crypto';
import { inject } from 'vitest';
import type { ManagementClient, ObservabilityBackend } from '../../lib/api';
import {
  FAULT_KINDS,
  type FaultSpec,
  type Sandbox,
  type SandboxOptions,
} from '../../sandbox/index';
import { startTestSandbox } from '../support/sandbox';
import { sandboxClients, sandboxManagementClient } from '../support/sandbox-clients';

declare module 'vitest' {
  export interface ProvidedContext {
    faultSeed: number;
  }
}

/** From vitest.faults.config.ts (FAULT_SEED in the environment), else a fixed default. */
export function faultSeed(): number {
  try {
    return inject('faultSeed') ?? DEFAULT_SEED;
  } catch {
    return DEFAULT_SEED;
  }
}
export const DEFAULT_SEED = 20250801;
export const RATES = [0.1, 0.2, 0.3] as const;

/** Per attempt; every latency fault waits longer, so it always ends as a client timeout. */
export const TIMEOUT_MS = 200;
export const LATENCY_MS = 400;
/** Backoff small enough to keep the suite fast; no jitter, so a seed fixes the whole run. */
export const RETRY = { baseDelayMs: 5, maxDelayMs: 50, jitter: 0 } as const;

/** A fixed base time: the sandbox clock moves only through `clock.advance`. */
export const BASE_TIME = Date.UTC(2025, 5, 1, 12, 0, 0);

const GENEROUS = { limit: 1_000_000, windowMs: 1_000 };

export function faultSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startTestSandbox({
    rateLimits: { management: GENEROUS, observability: GENEROUS },
    now: () => BASE_TIME,
    ...options,
  });
}

/** Every kind at `rate` on the management and observability APIs (the default routes). */
export function spec(seed: number, rate: number, routes?: string): FaultSpec {
  return {
    seed,
    rate,
    kinds: [...FAULT_KINDS],
    latencyMs: LATENCY_MS,
    ...(routes !== undefined ? { routes } : {}),
  };
}

const CLIENTS = { label: 'fault-suite', retry: RETRY, timeoutMs: TIMEOUT_MS } as const;

export function managementClient(
  sb: Sandbox,
  retry: { maxAttempts?: number } = {},
): ManagementClient {
  return sandboxManagementClient(sb.info, { ...CLIENTS, retry: { ...RETRY, ...retry } });
}

/** Managed mode as deployed: management API for list/create/get/delete, /api/v2 for PUT. */
export function backendFor(sb: Sandbox): ObservabilityBackend & { close(): void } {
  const clients = sandboxClients(sb.info, CLIENTS);
  return { ...clients.backend, close: () => clients.close() };
}

/** What the faults did in a run: counts per kind and a fingerprint of the exact sequence. */
export interface FaultTrace {
  requests: number;
  faults: Record<string, number>;
  /** sha256 (12 hex) of "METHOD path-shape fault" per request, in order. */
  fingerprint: string;
}

export function faultTrace(sb: Sandbox): FaultTrace {
  const entries = sb.requestLog.entries().filter((e) => e.surface !== 'admin');
  const faults: Record<string, number> = {};
  for (const e of entries) if (e.fault) faults[e.fault] = (faults[e.fault] ?? 0) + 1;
  // Ids differ between runs; the shape of the path does not.
  const shape = (p: string) => p.replace(/[0-9a-f]{24}|[0-9a-f-]{36}/gi, ':id');
  const text = entries.map((e) => `${e.method} ${shape(e.path)} ${e.fault ?? '-'}`).join('\n');
  return {
    requests: entries.length,
    faults,
    fingerprint: createHash('sha256').update(text).digest('hex').slice(0, 12),
  };
}

export function describeTrace(label: string, t: FaultTrace): string {
  const kinds = Object.entries(t.faults)
    .sort()
    .map(([k, n]) => `${k}=${n}`)
    .join(' ');
  return `${label}: ${t.requests} requests, faults ${kinds || 'none'}, trace ${t.fingerprint}`;
}

/** Lets writes delayed by a latency fault land, as the gap between two scheduled runs would. */
export const settle = () => new Promise((r) => setTimeout(r, LATENCY_MS + 50));

/**
 * The file's seed, and its fault-free run: made once, on first use, and shared by every
 * rate's comparison.
 */
export function seededRuns<T>(scenario: (rate: number | undefined, seed: number) => Promise<T>): {
  seed: number;
  baseline: () => Promise<T>;
} {
  const seed = faultSeed();
  let clean: T | undefined;
  return { seed, baseline: async () => (clean ??= await scenario(undefined, seed)) };
}
