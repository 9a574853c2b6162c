/**
 * What the alert side adds to provision-alerts, kept from growing back: what only its schemas
 * brought of zod (the events' discriminated union, the email format, the partial and extend
 * helpers), the schema of an event it never takes (Pipe State Changed), the in-memory version
 * store it never uses (it always has its DynamoDB table), and a byte ceiling on its own
 * modules. bundle-alerts.test.ts keeps the sync's and the CLI's files out of it.
 */
import { describe, expect, it } from 'vitest';
import { bundleOf } from './function-bundle';

const PROVISION = 'functions/provision-alerts/handler.ts';

/** The alert side of the bundle: the engine, its events, its schema and its API operations. */
const ALERT_SIDE = [
  /^lib\/alerts\//,
  /^lib\/events\//,
  /^lib\/schemas\/alert\.ts$/,
  /^lib\/api\/(create-once|observability-alerts|observability-backend|kit)\.ts$/,
  /^lib\/api\/management\/(alerts|observability)\.ts$/,
  /^functions\/provision-alerts\//,
];

/** Unminified bytes of those modules (esbuild's metafile): 61,297 now, 61,951 before the trims. */
const ALERT_SIDE_CEILING = 61_600;

async function alertSideBytes(): Promise<{ total: number; files: Record<string, number> }> {
  const { metafile } = await bundleOf(PROVISION);
  const [output] = Object.values(metafile.outputs);
  const files: Record<string, number> = {};
  let total = 0;
  for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
    if (!ALERT_SIDE.some((pattern) => pattern.test(file))) continue;
    files[file] = bytesInOutput;
    total += bytesInOutput;
  }
  return { total, files };
}

/** The zod/mini schema classes the bundle defines (`var ZodMiniEmail = ...`). */
async function zodKinds(): Promise<Set<string>> {
  const { text } = await bundleOf(PROVISION);
  return new Set([...text.matchAll(/\bvar ZodMini(\w+) = /g)].map((m) => m[1]));
}

describe('what the alert side adds to provision-alerts', () => {
  it('no zod kind its schemas alone used: events are told apart by detail-type, emails by pattern', async () => {
    const kinds = await zodKinds();
    expect(kinds.has('Object')).toBe(true);
    expect(['DiscriminatedUnion', 'Email'].filter((kind) => kinds.has(kind))).toEqual([]);
  });

  it("no zod partial helper: the update body's fields are made optional one by one", async () => {
    const { text } = await bundleOf(PROVISION);
    expect(/\bvar updateAlertBody = /.test(text)).toBe(true);
    expect(text.includes('cannot be used on object schemas containing refinements')).toBe(false);
  });

  it('no zod extend helper: the version items and the key secret spread their shared fields', async () => {
    const { text } = await bundleOf(PROVISION);
    expect(/\bvar managementKeySecret = /.test(text)).toBe(true);
    expect(text.includes('Invalid input to extend')).toBe(false);
  });

  it('no in-memory version store: the function always orders events in its table', async () => {
    const { text } = await bundleOf(PROVISION);
    expect(/\bvar DynamoVersionStore = /.test(text)).toBe(true);
    expect(/\bvar MemoryVersionStore = /.test(text)).toBe(false);
  });

  it('no Pipe State Changed schema: it never takes that event', async () => {
    const { text } = await bundleOf(PROVISION);
    expect(/\bvar alertEvent = /.test(text)).toBe(true);
    expect(/\bvar pipeStateChanged(Detail|Event) = /.test(text)).toBe(false);
  });

  it(`its own modules stay under ${ALERT_SIDE_CEILING} bytes`, async () => {
    const { total, files } = await alertSideBytes();
    expect(Object.keys(files)).toContain('lib/alerts/provision.ts');
    expect(total, JSON.stringify(files, null, 1)).toBeLessThanOrEqual(ALERT_SIDE_CEILING);
  });
});
