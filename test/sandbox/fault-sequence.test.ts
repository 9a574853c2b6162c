/**
 * Fault injection keyed by the request sequence per route (issue 16 §10): the same seed faults the
 * same requests of each route whatever the other routes did in between, whatever the ids in the
 * paths, and requests running concurrently on different routes.
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index';
import { closeAfterEach } from '../support/close-after-each';
import { startTestSandbox } from '../support/sandbox';
import { mgmt, obs } from '../support/sandbox-http';

const open = closeAfterEach<Sandbox>();
const N = 30;
const spec = (seed: number) => ({ seed, rate: 0.3, kinds: ['500' as const, '429' as const] });

/** Per route: the positions (from 0) of the faulted requests and their kinds. */
function faultedByRoute(sb: Sandbox): Record<string, string[]> {
  const seen = new Map<string, number>();
  const out: Record<string, string[]> = {};
  for (const entry of sb.requestLog.entries()) {
    if (entry.surface === 'admin') continue;
    // Ids differ per sandbox: count each route as one, as the sandbox does.
    const path = entry.path.replace(/[0-9a-f]{24}/g, ':id').replace(/[0-9a-f-]{36}/g, ':org');
    const route = `${entry.method} ${path}`;
    const n = seen.get(route) ?? 0;
    seen.set(route, n + 1);
    if (entry.fault) (out[route] ??= []).push(`${n}:${entry.fault}`);
  }
  return out;
}

async function run(seed: number, order: 'interleaved' | 'grouped' | 'concurrent') {
  const sb = await startTestSandbox({ faults: spec(seed) });
  open.push(sb);
  sb.faults.clear(); // the seed's draws start from here: nothing before counts
  sb.faults.set(spec(seed));
  const dashboardId = sb.store.state.dashboards[0].id;
  const calls = {
    list: () => obs(sb, 'GET', '/dashboards'),
    one: () => obs(sb, 'GET', `/dashboards/${dashboardId}`),
    keys: () => mgmt(sb, 'GET', '/keys'),
  };
  if (order === 'interleaved') {
    for (let i = 0; i < N; i++) for (const call of Object.values(calls)) await call();
  } else if (order === 'grouped') {
    for (const call of Object.values(calls)) for (let i = 0; i < N; i++) await call();
  } else {
    // One sequential chain per route, the chains racing each other.
    await Promise.all(
      Object.values(calls).map(async (call) => {
        for (let i = 0; i < N; i++) await call();
      }),
    );
  }
  return faultedByRoute(sb);
}

describe('fault injection keyed by per-route request sequence', () => {
  it('the same seed faults the same requests of each route, whatever the order across routes', async () => {
    const interleaved = await run(7, 'interleaved');
    const grouped = await run(7, 'grouped');
    const concurrent = await run(7, 'concurrent');
    expect(Object.keys(interleaved).sort()).toEqual([
      'GET /api/v2/dashboards',
      'GET /api/v2/dashboards/:id',
      'GET /v1/organizations/:org/keys',
    ]);
    // Some, not all, requests of each route are faulted (rate 0.3 over 30 requests).
    for (const faulted of Object.values(interleaved)) {
      expect(faulted.length).toBeGreaterThan(0);
      expect(faulted.length).toBeLessThan(N);
    }
    expect(grouped).toEqual(interleaved);
    expect(concurrent).toEqual(interleaved);
  });

  it('another seed faults other requests', async () => {
    expect(await run(8, 'grouped')).not.toEqual(await run(7, 'grouped'));
  });
});
