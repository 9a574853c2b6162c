/**
 * The functions that read their API secrets through clientsMiddleware (the sync, provision-alerts,
 * the watchdog's consumer) read them with lib/credentials' own cached provider, the one the
 * notifiers and the key sentinel use too, instead of carrying a second secrets cache:
 * @middy/secrets-manager, @middy/util and the glue between them were about 5 KiB of each.
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

const CONNECTED = [
  'functions/sync-dashboards/handler.ts',
  'functions/provision-alerts/handler.ts',
  'functions/pipe-watchdog/consumer.ts',
];

/** The packages under node_modules that left bytes in a bundle. */
async function packagesIn(entry: string): Promise<string[]> {
  const { metafile } = await bundleOf(entry);
  const packages = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (match && bytesInOutput > 0) packages.add(match[1]);
    }
  }
  return [...packages];
}

describe('bundle floor: the secrets cache', () => {
  it.each(CONNECTED)('%s reads its secrets with one cache of its own', async (entry) => {
    const { files } = await bundleOf(entry);
    expect(files).toContain('lib/credentials/secrets-manager.ts');
    const packages = await packagesIn(entry);
    expect(packages).toContain('@middy/core');
    expect(
      packages.filter((name) => name === '@middy/secrets-manager' || name === '@middy/util'),
    ).toEqual([]);
  });
});
