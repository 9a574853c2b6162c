/**
 * `cloudops sandbox` as a user runs it: a child process that prints its JSON contract on the
 * first line, serves until SIGTERM, and with --state keeps everything across a restart.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectFromEnv, sandboxEnv } from '../../cli/connect';
import type { SandboxInfo } from '../../sandbox';
import { startSandboxProcess } from '../support/sandbox-process';

const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const startCli = (args: string[]) => startSandboxProcess(args, children);

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

function clientsFor(info: SandboxInfo) {
  const env = { ...sandboxEnv(info), CLOUDOPS_LOG_LEVEL: 'silent' };
  return connectFromEnv(env, { managementRateLimit: false, observabilityRateLimit: false }).clients;
}

describe('cloudops sandbox', () => {
  it('prints the whole JSON contract on its first line', async () => {
    const { child, info } = await startCli([]);
    for (const field of [
      'apiUrl',
      'observabilityUrl',
      'secretsManagerUrl',
      'organizationId',
      'serviceId',
      'serviceIds',
      'keyId',
      'keySecret',
      'keyRecordId',
      'observabilityToken',
      'keySecretId',
      'observabilityTokenSecretId',
      'pipeIds',
      'webhookId',
    ]) {
      expect(info, field).toHaveProperty(field);
    }
    expect(await stop(child)).toBe(0);
  });

  it('keeps every key, pipe, dashboard and alert across a restart with --state', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cloudops-state-'));
    dirs.push(dir);
    const stateFile = path.join(dir, 'sandbox.json');

    const first = await startCli(['--state', stateFile]);
    const clients = clientsFor(first.info);
    const management = clients.requireManagement();
    const sid = first.info.serviceId;
    const key = await management.createKey({ name: 'persisted', roles: ['developer'] });
    const board = await management.createDashboard(sid, {
      name: 'persisted board',
      tags: ['t'],
      tiles: [{ name: 'Rows', x: 0, y: 0, w: 6, h: 3, series: [{ type: 'time', aggFn: 'count' }] }],
    });
    const alert = await management.createAlert(sid, {
      name: 'persisted alert',
      source: 'tile',
      dashboardId: board.id,
      tileId: board.tiles[0].id,
      threshold: 1,
      thresholdType: 'above',
      interval: '1h',
      channel: { type: 'webhook', webhookId: first.info.webhookId },
    });
    const before = {
      keys: await management.listKeys(),
      pipes: await management.listPipes(sid),
      dashboards: await management.listDashboards(sid),
      alerts: await management.listAlerts(sid),
    };
    clients.close();
    expect(await stop(first.child)).toBe(0);

    const second = await startCli(['--state', stateFile]);
    expect(second.info.keyId).toBe(first.info.keyId);
    const again = clientsFor(second.info);
    const m2 = again.requireManagement();
    // usedAt moves whenever a key authenticates; everything else must be identical.
    const withoutUsedAt = (keys: { usedAt?: unknown }[]) =>
      keys.map(({ usedAt: _, ...rest }) => rest);
    expect(withoutUsedAt(await m2.listKeys())).toEqual(withoutUsedAt(before.keys));
    expect(await m2.listPipes(sid)).toEqual(before.pipes);
    expect(await m2.listDashboards(sid)).toEqual(before.dashboards);
    expect(await m2.listAlerts(sid)).toEqual(before.alerts);
    expect((await m2.getKey(key.key.id)).name).toBe('persisted');
    expect((await again.backend(sid).getAlert(alert.id)).name).toBe('persisted alert');
    again.close();
    expect(await stop(second.child)).toBe(0);
  });
});
