/**
 * The one way tests start an in-process sandbox: free ports, rate limits a test will not hit
 * (override with `rateLimits`), and an explicit profile (default `spec`, the snapshot the older
 * tests were written against; pass `profile: 'current'` for today's service). The sandbox's info
 * lines go to the test's captured output for the leak scan; pass a debug `logger` to add one
 * line per request (it slows request-heavy tests, so it is not the default).
 */
import { createLogger } from '../../lib/log';
import { startSandbox } from '../../sandbox/index';
import type { Sandbox, SandboxOptions } from '../../sandbox/index';

export const GENEROUS_RATE_LIMITS = {
  management: { limit: 1_000_000, windowMs: 1_000 },
  observability: { limit: 1_000_000, windowMs: 1_000 },
} as const;

export function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({
    profile: 'spec',
    port: 0,
    rateLimits: GENEROUS_RATE_LIMITS,
    logger: createLogger({ level: 'info', fields: { component: 'sandbox' } }),
    ...options,
  });
}
