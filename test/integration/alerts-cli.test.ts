/** `cloudops alerts provision` against the sandbox (the command is run in-process). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertsCommand } from '../../cli/commands/alerts';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
import type { Dashboard } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import { declared, iso, syncedEvent } from './alert-events';
import { backendFor, makeDashboard, sandbox, storedAlerts } from './alerts-helpers';

let sb: Sandbox;
let dash: Dashboard;
const dir = mkdtempSync(path.join(tmpdir(), 'alerts-cli-'));

beforeAll(async () => {
  sb = await sandbox();
  dash = await makeDashboard(backendFor(sb), 'cli');
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(argv: string[], stateFile = path.join(dir, 'versions.json')) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    out: (t) => void (stdout += t + '\n'),
    err: (t) => void (stderr += t + '\n'),
    env: { ...sandboxEnv(sb.info), CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s' },
    isTTY: false,
  };
  const code = await alertsCommand.run(
    [...argv, '--state-file', stateFile],
    io,
    new AbortController().signal,
  );
  return { code, stdout, stderr };
}

function file(name: string, value: unknown): string {
  const p = path.join(dir, name);
  writeFileSync(p, typeof value === 'string' ? value : JSON.stringify(value));
  return p;
}

describe('cloudops alerts provision', () => {
  it('applies an array of events, then a re-run writes nothing', async () => {
    const wh = sb.info.webhookId;
    const events = [
      syncedEvent(
        dash,
        [declared(wh, 'Errors', 'E', 1), declared(wh, 'Latency', 'L', 2)],
        iso(1000),
      ),
    ];
    const f = file('events.json', events);
    const first = await run(['provision', '--file', f]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^ok Dashboard Synced event .*events\.json\[0\] \(2 writes\)/);
    expect(first.stdout).toMatch(/created +E \[/);
    const second = await run(['provision', '--file', f, '--json']);
    expect(second.code).toBe(0);
    const json = JSON.parse(second.stdout) as { ok: boolean; result: { writes: number } }[];
    expect(json).toMatchObject([{ ok: true, result: { writes: 0 } }]);
    expect(storedAlerts(sb).filter((a) => a.dashboard === dash.id)).toHaveLength(2);
  });

  it('applies each event on its own like the function: a bad one is named, exit 1, the others applied', async () => {
    const good = syncedEvent(dash, [declared(sb.info.webhookId, 'Throughput', 'T', 3)], iso(5000));
    const bad = { ...good, detail: { ...good.detail, dashboardId: 7 } };
    const f = file('mixed.json', [bad, good]);
    const r = await run(['provision', '--file', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/event .*mixed\.json\[0\] is invalid: detail\.dashboardId: /);
    expect(r.stderr).toMatch(/1 of 2 event\(s\) failed: .*mixed\.json\[0\]$/m);
    expect(r.stdout).toMatch(/^ok Dashboard Synced event .*mixed\.json\[1\]/m);
    expect(storedAlerts(sb).filter((a) => a.name === 'T')).toHaveLength(1);
    expect((await run(['provision', '--file', file('x.json', '{oops')])).stderr).toMatch(
      /x\.json: not JSON/,
    );
  });

  it('keeps the newest version per owner in the state file: a delayed older event file is skipped', async () => {
    const wh = sb.info.webhookId;
    const own = await makeDashboard(backendFor(sb), 'cli-order');
    const state = path.join(dir, 'order', 'versions.json');
    const A = [declared(wh, 'Errors', 'A', 1)];
    const v1 = file('v1.json', syncedEvent(own, A, iso(1000)));
    const v2 = file('v2.json', syncedEvent(own, [declared(wh, 'Latency', 'C', 3)], iso(2000)));
    const v3 = file('v3.json', syncedEvent(own, A, iso(3000)));
    expect((await run(['provision', '--file', v1], state)).code).toBe(0);
    expect((await run(['provision', '--file', v3], state)).stdout).toMatch(/\(0 writes\)/);
    const late = await run(['provision', '--file', v2], state);
    expect(late.code).toBe(0);
    expect(late.stdout).toMatch(/stale +C newer event 2025-01-01T00:00:03\.000Z already seen/);
    const alerts = storedAlerts(sb).filter((a) => a.dashboard === own.id);
    expect(alerts.map((a) => a.name)).toEqual(['A']);
    const saved = JSON.parse(readFileSync(state, 'utf8')) as { versions: Record<string, string> };
    expect(saved.versions).toEqual({
      [`service/${sb.info.serviceId}#d/dashboards%2Fcli-order.yaml`]: iso(3000),
    });
    // Another state file knows nothing of v3: there the marker check alone decides.
    const fresh = await run(['provision', '--file', v2], path.join(dir, 'other.json'));
    expect(fresh.stdout).toMatch(/created +C/);
  });

  it('usage errors and help', async () => {
    await expect(run(['nope'])).rejects.toThrow(/expected provision/);
    const help = (await run(['--help'])).stdout;
    expect(help).toMatch(/usage: cloudops alerts provision/);
    expect(help).toMatch(/--state-file.*default \.cloudops\/alerts-versions\.json/s);
  });
});
