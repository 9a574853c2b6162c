/** `cloudops alerts provision` against the sandbox (the command is run in-process). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertsCommand } from '../../cli/commands/alerts';
import type { CliIO } from '../../cli/io';
import type { Dashboard } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import {
  backendFor,
  declared,
  iso,
  makeDashboard,
  sandbox,
  storedAlerts,
  syncedEvent,
} from './alerts-helpers';

let sb: Sandbox;
let dash: Dashboard;
const dir = mkdtempSync(path.join(tmpdir(), 'alerts-cli-'));

beforeAll(async () => {
  sb = await sandbox();
  dash = await makeDashboard(backendFor(sb), 'cli');
});
afterAll(async () => {
  await sb.close();
});

async function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    out: (t) => void (stdout += t + '\n'),
    err: (t) => void (stderr += t + '\n'),
    env: {
      CLOUDOPS_API_URL: sb.info.apiUrl,
      CLOUDOPS_OBSERVABILITY_URL: sb.info.observabilityUrl,
      CLOUDOPS_ORGANIZATION_ID: sb.info.organizationId,
      CLOUDOPS_SERVICE_ID: sb.info.serviceId,
      CLOUDOPS_KEY_ID: sb.info.keyId,
      CLOUDOPS_KEY_SECRET: sb.info.keySecret,
      CLOUDOPS_OBSERVABILITY_TOKEN: sb.info.observabilityToken,
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
    },
    isTTY: false,
  };
  const code = await alertsCommand.run(argv, io, new AbortController().signal);
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

  it('validates every event before applying any, naming the event and field', async () => {
    const good = syncedEvent(dash, [declared(sb.info.webhookId, 'Throughput', 'T', 3)], iso(5000));
    const bad = { ...good, detail: { ...good.detail, dashboardId: 7 } };
    const f = file('mixed.json', [good, bad]);
    const r = await run(['provision', '--file', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/event .*mixed\.json\[1\] is invalid: detail\.dashboardId: /);
    expect(storedAlerts(sb).some((a) => a.name === 'T')).toBe(false);
    expect((await run(['provision', '--file', file('x.json', '{oops')])).stderr).toMatch(
      /x\.json: not JSON/,
    );
  });

  it('usage errors and help', async () => {
    await expect(run(['nope'])).rejects.toThrow(/expected provision/);
    expect((await run(['--help'])).stdout).toMatch(/usage: cloudops alerts provision/);
  });
});
