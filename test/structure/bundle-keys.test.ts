/**
 * What the two key functions leave out of their bundles: each carries only what it runs. The
 * rotator tests a new key with a pipe list read through a narrow schema (never the full pipe
 * record, nor the other pipe operations); the sentinel reads two of the rotator's settings (not
 * its parsers), tells findings (not the CLI's key listing) and only reads keys.
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

const CASES = [
  {
    entry: 'functions/rotate-key/handler.ts',
    files: ['lib/schemas/pipe.ts', 'lib/api/management/pipes.ts', 'lib/schemas/activity.ts'],
    code: ['listActivities(', 'getPipeSettings('],
  },
  {
    entry: 'functions/rotate-key/sentinel.ts',
    files: ['lib/keys/config.ts', 'lib/keys/rotation.ts', 'lib/keys/stages.ts'],
    code: ['function listKeysByRisk(', 'function describeManagement(', 'createKey(', 'deleteKey('],
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
    const sentinel = await bundleOf('functions/rotate-key/sentinel.ts');
    expect(sentinel.files).toContain('lib/keys/audit.ts');
    expect(sentinel.text).toContain('listActivities(');
  });
});
