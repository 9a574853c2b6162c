/**
 * Dashboard sync at scale: 200 generated dashboards x 10 tiles, synced with
 * lib/dashboards syncDashboards (directory source, managed mode) against an in-process
 * sandbox; requests and writes counted from the sandbox's request log, against the minimum
 * (1 list + one write per change).
 *
 *   npx tsx bench/run.ts --only dashboards
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectFromEnv, sandboxEnv } from '../cli/connect';
import { directorySource, syncDashboards } from '../lib/dashboards';
import { startSandbox } from '../sandbox/index';

export interface DashboardPass {
  pass: string;
  changedDashboards: number;
  requests: number;
  writes: number;
  /** 1 list + one write per changed dashboard. */
  minimum: number;
  ratioToMinimum: number;
  /** Requests by kind, e.g. `GET dashboards (list)`. */
  byKind: Record<string, number>;
  ok: boolean;
  wallMs: number;
}

const TILES = 10;

function dashboardYaml(n: number, changed = false): string {
  let tiles = '';
  for (let i = 0; i < TILES; i++) {
    // A changed dashboard: tile 3 grows (one field of one tile).
    const h = changed && i === 3 ? 6 : 4;
    tiles +=
      `  - name: tile ${i}\n    x: ${(i % 2) * 12}\n    y: ${Math.floor(i / 2) * 8}\n    w: 12\n    h: ${h}\n` +
      `    series:\n      - { type: time, dataSource: events, aggFn: count, where: "svc:s${n} tile:${i}" }\n`;
  }
  return `name: Bench service ${n}\ntags: [bench, team-${n % 7}]\ntiles:\n${tiles}`;
}

export async function benchDashboards(count = 200, changedShare = 0.05): Promise<DashboardPass[]> {
  const fast = { limit: 1_000_000, windowMs: 1_000 };
  const sb = await startSandbox({
    profile: 'spec',
    port: 0,
    rateLimits: { management: fast, observability: fast },
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-dashboards-'));
  const file = (n: number) => path.join(dir, `svc-${String(n).padStart(3, '0')}.yaml`);
  const { info } = sb;
  // The env a user exports after `cloudops sandbox`. The sandbox is not limiting here: this
  // counts requests, it does not time them.
  const connection = connectFromEnv(
    { ...sandboxEnv(info), CLOUDOPS_LOG_LEVEL: 'silent' },
    { managementRateLimit: false, observabilityRateLimit: false },
  );
  const backend = connection.clients.backend(info.serviceId);
  const passes: DashboardPass[] = [];
  const pass = async (label: string, changed: number) => {
    sb.requestLog.clear();
    const started = performance.now();
    const outcome = await syncDashboards({
      source: directorySource(dir),
      backend,
      mode: 'apply',
    });
    const wallMs = performance.now() - started;
    const api = sb.requestLog
      .entries()
      .filter((e) => e.surface === 'management' || e.surface === 'observability');
    const byKind: Record<string, number> = {};
    for (const e of api) {
      const kind = `${e.method} ${e.surface === 'management' ? 'mgmt' : 'obs'} ${e.path.endsWith('/dashboards') ? 'dashboards' : 'dashboard/{id}'}`;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    const writes = api.filter((e) => e.method !== 'GET').length;
    const minimum = 1 + changed;
    passes.push({
      pass: label,
      changedDashboards: changed,
      requests: api.length,
      writes,
      minimum,
      ratioToMinimum: Number((api.length / minimum).toFixed(3)),
      byKind,
      ok: outcome.apply?.ok ?? false,
      wallMs: Math.round(wallMs),
    });
  };
  try {
    for (let n = 0; n < count; n++) writeFileSync(file(n), dashboardYaml(n));
    await pass(`first apply (${count} new)`, count);
    await pass('no-op re-apply', 0);
    const changed = Math.round(count * changedShare);
    for (let n = 0; n < changed; n++) {
      const pick = Math.floor((n * count) / changed);
      writeFileSync(file(pick), dashboardYaml(pick, true));
    }
    await pass(`${Math.round(changedShare * 100)}% changed (${changed})`, changed);
    return passes;
  } finally {
    connection.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
