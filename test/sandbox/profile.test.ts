/** The profile a sandbox models: chosen at start, printed in the contract, kept by its state file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../sandbox/index';
import { caught } from '../support/caught';

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
});
