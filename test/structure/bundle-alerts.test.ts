/**
 * provision-alerts bundles what a provisioning run needs and nothing the sync or the CLI alone
 * use: the alert operations without the other observability objects (their schemas are what
 * made it heavy), the event executor without the sync's tile executor or the CLI's state file.
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

/** The repo files left in the bundle of `entry` after tree shaking. */
async function carried(entry: string): Promise<string[]> {
  return (await bundleOf(entry)).files;
}

const PROVISION = 'functions/provision-alerts/handler.ts';

const NEVER_IN_PROVISION: { why: string; files: string[] }[] = [
  {
    why: 'it reads and writes alerts only: no dashboard, webhook, saved-search or source schema',
    files: [
      'lib/schemas/dashboard.ts',
      'lib/schemas/webhook.ts',
      'lib/schemas/saved-search.ts',
      'lib/schemas/source.ts',
    ],
  },
  {
    why: 'its clients carry the alert operations alone (ALERTS_KIT), in either mode',
    files: [
      'lib/api/observability-objects.ts',
      'lib/api/observability-client.ts',
      'lib/api/management/observability.ts',
    ],
  },
  {
    why: "the sync's tile alerts and the CLI's state file are not its work",
    files: [
      'lib/alerts/tile-plan.ts',
      'lib/alerts/tile-apply.ts',
      'lib/alerts/versions-file.ts',
      'lib/alerts/ledger.ts',
    ],
  },
];

describe('what provision-alerts bundles', () => {
  it.each(NEVER_IN_PROVISION)('none of $files: $why', async ({ files }) => {
    const inBundle = await carried(PROVISION);
    expect(files.filter((f) => inBundle.includes(f))).toEqual([]);
  });

  it('still the alert writes both modes need, create-once and event trust', async () => {
    const inBundle = await carried(PROVISION);
    const needed = [
      'lib/api/observability-alerts.ts',
      'lib/api/management/alerts.ts',
      'lib/api/create-once.ts',
      'lib/alerts/provision.ts',
      'lib/events/trust.ts',
    ];
    expect(needed.filter((f) => !inBundle.includes(f))).toEqual([]);
  });
});
