import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { LocalWatchStore } from '../../../lib/watch/local-store';
import { parseRecord, recordIo, type WatchStore } from '../../../lib/watch/store';
import { startLocalDynamo, type LocalDynamo } from '../../support/local-dynamo';

const record = (version: number, state = 'Running') => ({ state, pending: [], version });
const schema = z.object({ state: z.string(), pending: z.array(z.never()), version: z.number() });

let dynamo: LocalDynamo;
let dir: string;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
  dir = mkdtempSync(path.join(tmpdir(), 'watch-store-'));
});
afterAll(async () => {
  await dynamo.close();
  rmSync(dir, { recursive: true, force: true });
});

const stores: [string, () => WatchStore][] = [
  ['dynamodb (dynalite)', () => dynamo.store()],
  ['file', () => new LocalWatchStore(path.join(dir, `${Math.random()}.json`))],
];

describe.each(stores)('%s store', (_name, make) => {
  it('creates, reads and conditionally updates a record by (scope, id)', async () => {
    const store = make();
    const id = `p-${Math.random()}`;
    expect(await store.get('org#svc', id)).toBeUndefined();
    expect(await store.save('org#svc', id, record(0))).toBe(true);
    expect(await store.save('org#svc', id, record(0))).toBe(false); // already exists
    expect(await store.save('org#svc', id, record(2))).toBe(false); // skipped a version
    expect(await store.save('org#svc', id, record(1, 'Failed'))).toBe(true);
    expect(await store.save('org#svc', id, record(1, 'Stopped'))).toBe(false); // lost race
    expect(await store.get('org#svc', id)).toEqual(record(1, 'Failed'));
    expect(await store.get('org#other', id)).toBeUndefined(); // the id is per scope
  });

  it('lists a whole scope, and only that scope', async () => {
    const store = make();
    const scope = `org-${Math.random()}#svc`;
    for (const id of ['a', 'b', '#service'])
      expect(await store.save(scope, id, record(0))).toBe(true);
    expect(await store.save(`${scope}2`, 'c', record(0))).toBe(true);
    const listed = await store.list(scope);
    expect(listed.map((r) => r.id).sort()).toEqual(['#service', 'a', 'b']);
    expect(listed[0].record).toEqual(record(0));
    expect(await store.list('nobody')).toEqual([]);
  });

  it('reads through a subject schema, naming store, scope and id when a record is bad', async () => {
    const store = make();
    const bad: { version: number; state: number } = { version: 0, state: 5 };
    await store.save('s', 'bad', bad);
    const io = recordIo(store, schema, 's', 'bad');
    await expect(io.reload()).rejects.toThrow(/stored watch record .* s\/bad is invalid: state/);
    expect(() => parseRecord(store, schema, 's', 'x', record(0))).not.toThrow();
  });
});

describe('dynamodb store under contention', () => {
  it('of five writers of the same version exactly one wins', async () => {
    const id = `race-${Math.random()}`;
    await dynamo.store().save('org#svc', id, record(0));
    const writers = Array.from({ length: 5 }, (_, i) =>
      dynamo.store().save('org#svc', id, record(1, `S${i}`)),
    );
    const results = await Promise.all(writers);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await dynamo.store().get('org#svc', id)).toEqual(record(1, `S${winner}`));
  });
});

describe('LocalWatchStore file', () => {
  it('persists atomically and reloads', async () => {
    const file = path.join(dir, 'state', 'watch.json');
    await new LocalWatchStore(file).save('org#svc', 'x', record(0));
    expect(readdirSync(path.dirname(file))).toEqual(['watch.json']); // no temp files left
    const saved = JSON.parse(readFileSync(file, 'utf8')) as {
      records: Record<string, Record<string, { state: string }>>;
    };
    expect(saved.records['org#svc']?.x?.state).toBe('Running');
    expect(await new LocalWatchStore(file).get('org#svc', 'x')).toEqual(record(0));
  });

  it('reads a state file the watchdog wrote before scopes: pipes and services by their old keys', async () => {
    const file = path.join(dir, 'pipes-state.json');
    const pipe = { organizationId: 'o', serviceId: 's', pipeId: 'p1', state: 'Failed', version: 4 };
    const service = { organizationId: 'o', serviceId: 's', consecutiveFailures: 0, version: 2 };
    writeFileSync(
      file,
      JSON.stringify({ pipes: { 'o#s#p1': pipe }, services: { 'o#s': service } }),
    );
    const store = new LocalWatchStore(file);
    expect(await store.get('o#s', 'p1')).toEqual(pipe);
    expect(await store.get('o#s', '#service')).toEqual(service);
    // The next write carries on from the stored version, in the new layout.
    expect(await store.save('o#s', 'p1', { ...pipe, version: 5 })).toBe(true);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(saved)).toEqual(['records']);
  });

  it('coalesces concurrent writes without losing any', async () => {
    const file = path.join(dir, 'many.json');
    const store = new LocalWatchStore(file);
    const ids = Array.from({ length: 50 }, (_, i) => `m${i}`);
    expect(await Promise.all(ids.map((id) => store.save('org#svc', id, record(0))))).toEqual(
      ids.map(() => true),
    );
    const reloaded = await new LocalWatchStore(file).list('org#svc');
    expect(reloaded.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('recovers from a failed write: later saves are written, no temp file is left', async () => {
    const file = path.join(dir, 'blocked.json');
    const store = new LocalWatchStore(file);
    expect(await store.save('org#svc', 'f0', record(0))).toBe(true);
    // A directory where the file should be: every write fails until it is removed.
    rmSync(file);
    mkdirSync(path.join(file, 'inside'), { recursive: true });
    const first = store.save('org#svc', 'f1', record(0));
    const queued = store.save('org#svc', 'f2', record(0));
    await expect(first).rejects.toThrow();
    await expect(queued).rejects.toThrow();
    rmSync(file, { recursive: true });
    expect(await store.save('org#svc', 'f3', record(0))).toBe(true);
    const reloaded = await new LocalWatchStore(file).list('org#svc');
    expect(reloaded.map((r) => r.id).sort()).toEqual(['f0', 'f1', 'f2', 'f3']);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('names the file and the field when the state file is invalid', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ records: { s: { k: { version: 'one' } } } }));
    await expect(new LocalWatchStore(file).get('s', 'k')).rejects.toThrow(
      /bad\.json.*records\.s\.k\.version/,
    );
    writeFileSync(file, JSON.stringify({ pipes: { k: { state: 5 } } }));
    await expect(new LocalWatchStore(file).get('s', 'k')).rejects.toThrow(/bad\.json.*pipes\.k/);
    writeFileSync(file, '{nope');
    await expect(new LocalWatchStore(file).get('s', 'k')).rejects.toThrow(/bad\.json is not JSON/);
  });
});
