/**
 * What the two key functions leave out of their bundles: each carries only what it runs. The
 * rotator tests a new key with a pipe list read through a narrow schema (never the full pipe
 * record, nor the other pipe operations); the sentinel reads two of the rotator's settings (not
 * its parsers), tells findings (not the CLI's key listing) and only reads keys. Neither reaches
 * dashboards or alerts, so both build the management client alone (not createClients).
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

/** lib/clients.ts's dashboards and alerts side: createClients and its backend's messages. */
const DASHBOARDS_SIDE = [
  'function createClients(',
  'reaches dashboards and alerts through a service',
];

const CASES = [
  {
    entry: 'functions/rotate-key/handler.ts',
    files: ['lib/schemas/pipe.ts', 'lib/api/management/pipes.ts', 'lib/schemas/activity.ts'],
    code: ['listActivities(', 'getPipeSettings(', ...DASHBOARDS_SIDE],
  },
  {
    entry: 'functions/rotate-key/sentinel.ts',
    files: ['lib/keys/config.ts', 'lib/keys/rotation.ts', 'lib/keys/stages.ts'],
    code: [
      'function listKeysByRisk(',
      'function describeManagement(',
      'createKey(',
      'deleteKey(',
      // the create/update request schemas (their lazy, pure definitions are left out)
      'a key carries at least 1 role',
      ...DASHBOARDS_SIDE,
    ],
  },
];

describe('what the key functions leave out', () => {
  it.each(CASES)('$entry carries none of $files nor $code', async ({ entry, files, code }) => {
    const built = await bundleOf(entry);
    expect(files.filter((file) => built.files.includes(file))).toEqual([]);
    expect(code.filter((piece) => built.text.includes(piece))).toEqual([]);
  });

  it('the checks see what a function does carry', async () => {
    const rotator = await bundleOf('functions/rotate-key/handler.ts');
    expect(rotator.files).toContain('lib/api/management/pipe-probe.ts');
    expect(rotator.text).toContain('createKey(');
    expect(rotator.text).toContain('a key carries at least 1 role');
    const sentinel = await bundleOf('functions/rotate-key/sentinel.ts');
    expect(sentinel.files).toContain('lib/keys/audit.ts');
    expect(sentinel.text).toContain('listActivities(');
    const sync = await bundleOf('functions/sync-dashboards/handler.ts');
    expect(DASHBOARDS_SIDE.filter((piece) => sync.text.includes(piece))).toEqual(DASHBOARDS_SIDE);
  });
});
