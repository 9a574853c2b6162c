/**
 * What the key functions no longer carry (issue 27's bundle goals: each at most +100 KiB over its
 * SDK-only baseline). The sentinel authenticates with its own key (managementAuth: not the
 * rotator's key secret schema, nor zod's extend), reads its settings as one object, parses the
 * key record's expiry without a union and its date-times without zod's ISO classes, tells its
 * notices' subject with an enum, runs with the engine's default delivery limits (not their strict
 * settings schema), keeps its findings with Get and Put (no Query), reads its table without the
 * watchers' condition settings and runs without middy (it has no middleware). The rotator parses date-times with the same lean check.
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

const SENTINEL = 'functions/rotate-key/sentinel.ts';
const ROTATOR = 'functions/rotate-key/handler.ts';

/** The zod/mini schema classes a bundle carries (esbuild keeps `var ZodMiniX = `). */
async function zodKinds(entry: string): Promise<string[]> {
  const { text } = await bundleOf(entry);
  return [...text.matchAll(/\bvar ZodMini(\w+) = /g)].map((m) => m[1]);
}

/** The packages a bundle read (node_modules folders), e.g. `@middy/core`. */
async function packages(entry: string): Promise<string[]> {
  const { metafile } = await bundleOf(entry);
  const [output] = Object.values(metafile.outputs);
  return Object.entries(output.inputs)
    .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
    .map(([file]) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1])
    .filter((name): name is string => name !== undefined);
}

const LEFT_OUT = [
  {
    entry: SENTINEL,
    kinds: ['Union', 'Literal', 'Null', 'Never', 'ISODateTime', 'StringFormat'],
    code: [
      'managementKeySecret',
      'function extend(',
      'new QueryCommand(',
      'deliveryLimitsSchema',
      'CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES',
      // made at import though it never reads an observability token nor tells a 409
      'var observabilityTokenSecret',
      'var isConflict',
    ],
    packages: ['@middy/core'],
  },
  { entry: ROTATOR, kinds: ['ISODateTime', 'StringFormat'], code: [], packages: [] },
];

describe('what the key functions leave out of their bundles', () => {
  it.each(LEFT_OUT)('$entry carries none of $kinds, $code, $packages', async (c) => {
    const kinds = await zodKinds(c.entry);
    expect(c.kinds.filter((kind) => kinds.includes(kind))).toEqual([]);
    const { text } = await bundleOf(c.entry);
    expect(c.code.filter((piece) => text.includes(piece))).toEqual([]);
    const read = await packages(c.entry);
    expect(c.packages.filter((name) => read.includes(name))).toEqual([]);
  });

  it('the checks see what a function does carry', async () => {
    // the rotator reads (and checks) the whole key secret, with middy around its step
    const rotator = await bundleOf(ROTATOR);
    expect(rotator.text).toContain('managementKeySecret');
    expect(rotator.text).toContain('function extend(');
    expect(await packages(ROTATOR)).toContain('@middy/core');
    // the watchdog's consumer lists a scope's records, parses its strict delivery settings
    // and reads its notices' subjects as literals
    const consumer = await bundleOf('functions/pipe-watchdog/consumer.ts');
    expect(consumer.text).toContain('new QueryCommand(');
    expect(consumer.text).toContain('CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES');
    expect(await zodKinds('functions/pipe-watchdog/consumer.ts')).toEqual(
      expect.arrayContaining(['Literal', 'Never']),
    );
    // the sync's dashboard schemas keep their unions
    expect(await zodKinds('functions/sync-dashboards/handler.ts')).toContain('Union');
  });
});
