/**
 * Sandbox restart check: `cloudops sandbox --state FILE` as a child process, killed with
 * SIGKILL in the middle of a run of writes (dashboards apply, key creation, alert creation),
 * then restarted from the file. Every write it acknowledged (answered 2xx) must be there
 * after the restart, and the dashboards apply must converge afterwards. Several cycles, the
 * kill landing right after the n-th acknowledgement, where a reply sent before the state
 * file is synced would be lost.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { syncDashboards, type DashboardSource } from '../../lib/dashboards';
import { registerSecret } from '../../lib/redact';
import type { SandboxInfo } from '../../sandbox';
import { sandboxClients } from '../support/sandbox-clients';
import { startSandboxProcess } from '../support/sandbox-process';

const dir = mkdtempSync(path.join(tmpdir(), 'cloudops-restart-'));
const stateFile = path.join(dir, 'state.json');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const startCli = () =>
  startSandboxProcess(
    [
      '--state',
      stateFile,
      '--management-rate-limit',
      '100000/1s',
      '--observability-rate-limit',
      '100000/1s',
    ],
    children,
  );

// One attempt: a dead server must fail the call, not be waited out.
const connect = (info: SandboxInfo) =>
  sandboxClients(info, { label: 'restart', retry: { maxAttempts: 1 }, timeoutMs: 2_000 });

const DASHBOARDS = 25;
const files: Record<string, string> = Object.fromEntries(
  Array.from({ length: DASHBOARDS }, (_, n) => [
    `r-${n}.yaml`,
    `name: Restart ${n}\ntiles:\n  - { name: t, x: 0, y: 0, w: 6, h: 4, series: [{ type: time, dataSource: events, aggFn: count }] }\n`,
  ]),
);
const source: DashboardSource = {
  label: 'memory',
  list: () => Promise.resolve(Object.keys(files)),
  read: (f) => Promise.resolve(files[f]),
};

interface Acked {
  dashboards: Set<string>;
  keys: Set<string>;
  alerts: Set<string>;
}

/** Three writers at once; the child gets SIGKILL synchronously on the `killAt`-th acknowledgement. */
async function writeUntilKilled(
  child: ChildProcess,
  info: SandboxInfo,
  killAt: number,
  cycle: number,
  acked: Acked,
): Promise<number> {
  const c = connect(info);
  let acks = 0;
  const exited = new Promise((r) => child.once('exit', r));
  const ack = (set: Set<string>, id: string) => {
    set.add(id);
    if (++acks === killAt) child.kill('SIGKILL');
  };
  const dashboard = await c.backend.createDashboard({
    name: `alert host ${cycle}`,
    tiles: [{ name: 'a', x: 0, y: 0, w: 6, h: 4 }],
  });
  ack(acked.dashboards, dashboard.id);
  const tileId = dashboard.tiles[0].id;
  const keys = async () => {
    for (let i = 0; ; i += 1) {
      const r = await c.management.createKey({
        name: `restart-${cycle}-${i}`,
        roles: ['developer'],
        expireAt: '2099-01-01T00:00:00.000Z',
      });
      registerSecret(r.keySecret);
      ack(acked.keys, r.key.id);
    }
  };
  const alerts = async () => {
    for (let i = 0; ; i += 1) {
      const a = await c.backend.createAlert({
        source: 'tile',
        dashboardId: dashboard.id,
        tileId,
        name: `restart ${cycle}-${i}`,
        threshold: i,
        thresholdType: 'above',
        interval: '5m',
        channel: { type: 'webhook', webhookId: info.webhookId },
      });
      ack(acked.alerts, a.id);
    }
  };
  const apply = syncDashboards({
    source,
    backend: c.backend,
    mode: 'apply',
    onResult: (r) => {
      if (r.status === 'created' && r.id) ack(acked.dashboards, r.id);
    },
  });
  // The writers end when the server dies (their next call fails); the apply reports per dashboard.
  await Promise.allSettled([keys(), alerts(), apply]);
  await exited;
  c.close();
  return acks;
}

describe('sandbox restart (SIGKILL mid-run, state file)', () => {
  it('keeps every acknowledged write and the apply converges after the restart', async () => {
    const acked: Acked = { dashboards: new Set(), keys: new Set(), alerts: new Set() };
    const cycles = [5, 9, 14, 20, 27, 33];
    const losses: string[] = [];
    let { child, info } = await startCli();
    for (const [cycle, killAt] of cycles.entries()) {
      const acks = await writeUntilKilled(child, info, killAt, cycle, acked);
      expect(acks).toBeGreaterThanOrEqual(killAt);
      ({ child, info } = await startCli());
      const c = connect(info);
      const keys = new Set((await c.management.listKeys()).map((k) => k.id));
      const dashboards = new Set((await c.backend.listDashboards()).map((d) => d.id));
      const alerts = new Set((await c.backend.listAlerts()).map((a) => a.id));
      c.close();
      const gone = (set: Set<string>, have: Set<string>, kind: string) =>
        [...set].filter((id) => !have.has(id)).map((id) => `${kind} ${id}`);
      const lost = [
        ...gone(acked.keys, keys, 'key'),
        ...gone(acked.dashboards, dashboards, 'dashboard'),
        ...gone(acked.alerts, alerts, 'alert'),
      ];
      if (lost.length > 0)
        losses.push(`cycle ${cycle} (SIGKILL at ack ${killAt}): ${lost.join(', ')}`);
      // Count each loss once: later cycles check only what they acknowledged themselves.
      for (const [set, have] of [
        [acked.keys, keys],
        [acked.dashboards, dashboards],
        [acked.alerts, alerts],
      ] as const)
        for (const id of [...set]) if (!have.has(id)) set.delete(id);
    }
    console.log(
      `restart: ${cycles.length} SIGKILLs, acknowledged and kept: ${acked.keys.size} keys, ${acked.dashboards.size} dashboards, ${acked.alerts.size} alerts`,
    );

    // After the last restart, the apply converges: every file once, no duplicates.
    const c = connect(info);
    let converged = false;
    for (let round = 0; round < 3 && !converged; round += 1) {
      const run = await syncDashboards({ source, backend: c.backend, mode: 'apply' });
      converged = !run.plan.pending && run.apply!.ok;
    }
    const owned = (await c.backend.listDashboards()).filter((d) => d.name.startsWith('Restart '));
    c.close();
    expect(converged).toBe(true);
    expect(losses, 'acknowledged writes lost across a SIGKILL').toEqual([]);
    expect(owned.map((d) => d.name).sort()).toEqual(
      Object.keys(files)
        .map((f) => `Restart ${f.slice(2, -5)}`)
        .sort(),
    );
    child.kill('SIGTERM');
  });
});
