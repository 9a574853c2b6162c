/** The profile a sandbox models: chosen at start, printed in the contract, kept by its state file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../sandbox/index';
import { caught } from '../support/caught';
import { startSandboxProcess } from '../support/sandbox-process';
import { obs } from '../support/sandbox-http';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

const dir = mkdtempSync(join(tmpdir(), 'sandbox-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sandbox profile', () => {
  it('defaults to current and says which profile it runs', async () => {
    const sb = await startSandbox({ port: 0 });
    await sb.close();
    expect(sb.info.profile).toBe('current');
  });

  it('a state file keeps its profile; asking for the other one is refused, naming the file', async () => {
    const stateFile = join(dir, 'spec.json');
    const first = await startSandbox({ port: 0, profile: 'spec', stateFile });
    await first.close();
    const again = await startSandbox({ port: 0, stateFile });
    await again.close();
    expect(again.info.profile).toBe('spec');
    const error = await caught(startSandbox({ port: 0, profile: 'current', stateFile }));
    expect(error.message).toBe(
      `sandbox state file ${stateFile} holds a spec profile sandbox, not current`,
    );
  });

  it('refuses an unknown profile', async () => {
    const error = await caught(startSandbox({ port: 0, profile: 'live' as never }));
    expect(error.message).toBe('sandbox profile must be current or spec, got "live"');
  });

  it('a current-profile state file restarts as current, idle service and alerts intact', async () => {
    const stateFile = join(dir, 'current.json');
    const first = await startSandbox({ port: 0, stateFile });
    const before = await obs(first, 'GET', '/alerts');
    first.setServiceState(first.info.serviceIds[1], 'idle');
    await first.close();
    const again = await startSandbox({ port: 0, stateFile });
    try {
      expect(again.info.profile).toBe('current');
      expect(again.info.idleServiceId).toBe(first.info.idleServiceId);
      expect(again.store.service(first.info.serviceIds[1])?.state).toBe('idle');
      expect((await obs(again, 'GET', '/alerts')).json).toEqual(before.json);
    } finally {
      await again.close();
    }
  });

  it('cloudops sandbox --profile current|spec prints the profile; another value is a usage error', async () => {
    const { info } = await startSandboxProcess(['--profile', 'current'], children);
    expect(info.profile).toBe('current');
    expect(info.idleServiceId).toEqual(expect.any(String));
    const bad = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '../../cli/cloudops.js'), 'sandbox', '--profile', 'live'],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(bad.status).toBe(64);
    expect(bad.stderr).toContain('--profile expects current or spec, got "live"');
  });
});
