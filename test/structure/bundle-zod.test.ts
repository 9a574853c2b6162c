/**
 * The zod/mini kinds a function bundle carries are what zod costs it (each schema class brings
 * its parser and its builder). Where lib/schemas/builders.ts stands in for a kind, or a schema a
 * function never parses is marked pure, the kind left the bundle; this keeps it out.
 */
import { build } from 'esbuild';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The zod/mini schema classes in the bundle of `entry` (`ZodMiniURL` is `URL`). */
async function zodKinds(entry: string, stdin?: string): Promise<Set<string>> {
  const result = await build({
    ...(stdin
      ? { stdin: { contents: stdin, resolveDir: ROOT, loader: 'ts' } }
      : { entryPoints: [path.join(ROOT, entry)] }),
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    logLevel: 'silent',
  });
  const text = result.outputFiles[0].text;
  return new Set([...text.matchAll(/\bvar ZodMini(\w+) = /g)].map((m) => m[1]));
}

/**
 * url(), uuidString(), safeInteger() and stringRecord() stand in for zod's URL, UUID, int and
 * record in lib/ and functions/ (but the dashboard file schema): a bundle drops a kind only once
 * none of its files calls zod's own, so each function is held to all four it can drop.
 */
const REPLACED = ['URL', 'UUID', 'NumberFormat', 'Record'];

/** What each function no longer carries, and what stands in for it. */
const LEFT_OUT: { entry: string; kinds: string[] }[] = [
  { entry: 'functions/rotate-key/handler.ts', kinds: REPLACED },
  { entry: 'functions/rotate-key/sentinel.ts', kinds: REPLACED },
  // the dashboard file schema keeps zod's uuid, int and record: the editors' JSON Schema is made from them
  { entry: 'functions/sync-dashboards/handler.ts', kinds: ['URL'] },
  { entry: 'functions/provision-alerts/handler.ts', kinds: REPLACED },
  // expiry (a union of an ISO date-time, '' and null) is pure, and the watchdog never parses it
  {
    entry: 'functions/pipe-watchdog/handler.ts',
    kinds: [...REPLACED, 'Union', 'Literal', 'Null', 'ISODateTime'],
  },
  { entry: 'functions/pipe-watchdog/consumer.ts', kinds: REPLACED },
];

describe('zod kinds kept out of the function bundles', () => {
  it.each(LEFT_OUT)('$entry carries none of $kinds', async ({ entry, kinds }) => {
    const carried = await zodKinds(entry);
    expect(kinds.filter((kind) => carried.has(kind))).toEqual([]);
  });

  it("the check sees a kind a module reaches (zod's own url, uuid, int and record)", async () => {
    const carried = await zodKinds(
      'stdin',
      "import * as z from 'zod/mini';\n" +
        'console.log(z.object({ u: z.url(), id: z.uuid(), n: z.int(), r: z.record(z.string(), z.string()) }));',
    );
    expect(REPLACED.filter((kind) => carried.has(kind))).toEqual(REPLACED);
  });
});
