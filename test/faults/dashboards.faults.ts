/**
 * Dashboards as code under seeded faults: apply repeatedly until converged (as the scheduled
 * sync would), through a first apply and then an edit (tile changed, added, removed, a new
 * dashboard, one dropped with prune). The end state must equal the fault-free one: the same
 * dashboards, and every tile that stayed keeps the id it got at creation.
 */
import { describe, expect, it } from 'vitest';
import {
  applyPlan,
  loadDashboards,
  planDashboards,
  syncDashboards,
  type DashboardSource,
} from '../../lib/dashboards';
import type { Sandbox } from '../../sandbox/index';
import { closeAfterEach } from '../support/close-after-each';
import {
  backendFor,
  describeTrace,
  faultSandbox,
  faultSeed,
  faultTrace,
  LATENCY_MS,
  RATES,
  seededRuns,
  settle,
  spec,
} from './helpers';

const open = closeAfterEach<Sandbox>();

type Files = Record<string, string>;

function memorySource(files: () => Files): DashboardSource {
  return {
    label: 'memory',
    list: () => Promise.resolve(Object.keys(files())),
    read: (file) => Promise.resolve(files()[file]),
  };
}

function tile(name: string, i: number, h = 4): string {
  return `  - name: ${name}\n    x: ${(i % 2) * 12}\n    y: ${Math.floor(i / 2) * 8}\n    w: 12\n    h: ${h}\n    series:\n      - { type: time, dataSource: events, aggFn: count, where: "tile:${name}" }\n`;
}
function dashboard(name: string, tiles: string[], heights: Record<string, number> = {}): string {
  return `name: ${name}\ntags: [fault-suite]\ntiles:\n${tiles.map((t, i) => tile(t, i, heights[t])).join('')}`;
}

const TILES = ['errors', 'latency', 'throughput', 'saturation'];
const COUNT = 16;
const FIRST: Files = Object.fromEntries(
  Array.from({ length: COUNT }, (_, n) => [`svc-${n}.yaml`, dashboard(`Service ${n}`, TILES)]),
);
/** Per dashboard by n % 5: a tile changed, a tile added, a tile removed, dropped (prune), as is. */
const SECOND: Files = {
  'svc-new.yaml': dashboard('Service new', ['errors', 'latency']),
};
for (let n = 0; n < COUNT; n += 1) {
  const file = `svc-${n}.yaml`;
  const name = `Service ${n}`;
  if (n % 5 === 0) SECOND[file] = dashboard(name, TILES, { latency: 6 });
  else if (n % 5 === 1) SECOND[file] = dashboard(name, [...TILES, 'queue']);
  else if (n % 5 === 2) SECOND[file] = dashboard(name, ['errors', 'throughput', 'saturation']);
  else if (n % 5 === 4) SECOND[file] = FIRST[file]!;
}

interface Phase {
  rounds: number;
  failedResults: number;
}

interface Outcome {
  /** Dashboards as stored, tile ids replaced by `kept` (same id as after the first apply) or `new`. */
  state: string[];
  phases: Phase[];
}

async function scenario(rate: number | undefined, seed: number): Promise<Outcome> {
  const sb = await faultSandbox();
  open.push(sb);
  const backend = backendFor(sb);
  let files = FIRST;
  const source = memorySource(() => files);
  if (rate !== undefined) sb.faults.set(spec(seed, rate));

  // One scheduled run after another until a run applies cleanly and the next plan is empty.
  const converge = async (prune: boolean): Promise<Phase> => {
    let failedResults = 0;
    for (let round = 1; round <= 40; round += 1) {
      const run = await syncDashboards({ source, backend, mode: 'apply', prune }).catch(
        (error: unknown) => error as Error,
      );
      if (!(run instanceof Error)) {
        failedResults += run.apply!.results.filter((r) => r.status === 'failed').length;
        if (!run.plan.pending && run.apply!.ok) return { rounds: round, failedResults };
      }
      await settle();
    }
    throw new Error(`dashboards did not converge in 40 runs (seed ${seed}, rate ${rate})`);
  };

  const phases = [await converge(false)];
  const idsAfterFirst = new Map(
    sb.store.state.dashboards.flatMap((d) => d.tiles.map((t) => [`${d.name}/${t.name}`, t.id])),
  );
  files = SECOND;
  phases.push(await converge(true));
  sb.faults.clear();
  backend.close();
  if (rate !== undefined) console.log(describeTrace(`dashboards rate ${rate}`, faultTrace(sb)));

  const state = sb.store.state.dashboards
    .filter((d) => d.serviceId === sb.info.serviceId)
    .map((d) =>
      JSON.stringify({
        name: d.name,
        tags: d.tags,
        tiles: d.tiles.map(({ id, ...t }) => ({
          ...t,
          id: idsAfterFirst.get(`${d.name}/${t.name}`) === id ? 'kept' : 'new',
        })),
      }),
    )
    .sort();
  return { state, phases };
}

describe('dashboards sync under seeded faults', () => {
  const { seed, baseline } = seededRuns(scenario);

  it('fault-free: one apply and one empty plan per phase', async () => {
    const c = await baseline();
    expect(c.phases.map((p) => p.rounds)).toEqual([2, 2]); // apply, then an empty plan
    expect(c.state.filter((d) => d.includes('"cloudops"'))).toHaveLength(COUNT - 3 + 1);
    // Sanity of the comparison itself: kept and new ids both occur.
    expect(c.state.join()).toContain('"id":"kept"');
    expect(c.state.join()).toContain('"id":"new"');
  });

  for (const rate of RATES) {
    it(`rate ${rate * 100} %, seed ${seed}: same dashboards and tile ids as without faults`, async () => {
      const c = await baseline();
      const faulty = await scenario(rate, seed);
      console.log(
        `dashboards rate ${rate}: runs to converge ${faulty.phases.map((p) => p.rounds).join(' + ')}, failed dashboard results ${faulty.phases.reduce((n, p) => n + p.failedResults, 0)}`,
      );
      expect(faulty.state).toEqual(c.state);
    });
  }
});

/**
 * Issue 16 §13: a failed create is retried within the run (re-list, find by the marker,
 * create only if absent), so ONE apply converges under faults, and never duplicates.
 */
describe('one apply converges under faults', () => {
  const seed = faultSeed();
  const MANY: Files = Object.fromEntries(
    Array.from({ length: 30 }, (_, n) => [`one-${n}.yaml`, dashboard(`One ${n}`, TILES)]),
  );

  for (const rate of RATES) {
    it(`rate ${rate * 100} %, seed ${seed}: every dashboard exactly once after a single apply`, async () => {
      const sb = await faultSandbox();
      open.push(sb);
      const backend = backendFor(sb);
      const desired = await loadDashboards(memorySource(() => MANY));
      sb.faults.set(spec(seed, rate, 'POST .*'));
      // The list that starts the run is retried by the client; the run itself happens once.
      const plan = await planDashboards(desired, backend);
      const result = await applyPlan(plan, backend, { relistDelayMs: LATENCY_MS + 50 });
      const trace = faultTrace(sb);
      sb.faults.clear();
      await settle();
      console.log(describeTrace(`dashboards one-apply rate ${rate}`, trace));
      expect(trace.faults).not.toEqual({});
      expect(result.results.filter((r) => r.status !== 'created')).toEqual([]);
      const names = sb.store.state.dashboards
        .filter((d) => d.serviceId === sb.info.serviceId && d.name.startsWith('One '))
        .map((d) => d.name)
        .sort();
      expect(names).toEqual(
        Object.values(MANY)
          .map((t) => t.split('\n')[0].slice(6))
          .sort(),
      );
      const after = await planDashboards(desired, backend);
      expect(after.pending).toBe(false);
      backend.close();
    });
  }
});
