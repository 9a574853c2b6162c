import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDynamo, type LocalDynamo } from '../../support/local-dynamo';
import { LocalStateStore, type StateStore } from '../../../lib/pipes/store';
import type { PipeRecord, ServiceRecord } from '../../../lib/pipes/types';

const record = (pipeId: string, version: number, state = 'Running'): PipeRecord => ({
  organizationId: 'org',
  serviceId: 'svc',
  pipeId,
  pipeName: `pipe ${pipeId}`,
  state,
  since: 1000,
  lastSeenAt: 1000,
  changes: [],
  flapping: false,
  stuckNotified: false,
  gone: false,
  restarts: [],
  pending: [],
  version,
});
const service = (version: number, failures: number): ServiceRecord => ({
  organizationId: 'org',
  serviceId: 'svc',
  consecutiveFailures: failures,
  announced: false,
  idle: false,
  pending: [],
  version,
});

let dynamo: LocalDynamo;
let dir: string;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
  dir = mkdtempSync(path.join(tmpdir(), 'watchdog-store-'));
});
afterAll(async () => {
  await dynamo.close();
  rmSync(dir, { recursive: true, force: true });
});

const stores: [string, () => StateStore][] = [
  ['dynamodb (dynalite)', () => dynamo.store()],
  ['file', () => new LocalStateStore(path.join(dir, `${Math.random()}.json`))],
];

describe.each(stores)('%s store', (_name, make) => {
  it('creates, reads and conditionally updates pipe records', async () => {
    const store = make();
    const id = `p-${Math.random()}`;
    expect(await store.getPipe('org', 'svc', id)).toBeUndefined();
    expect(await store.savePipe(record(id, 0))).toBe(true);
    expect(await store.savePipe(record(id, 0))).toBe(false); // already exists
    expect(await store.savePipe(record(id, 2))).toBe(false); // skipped a version
    expect(await store.savePipe(record(id, 1, 'Failed'))).toBe(true);
    expect(await store.savePipe(record(id, 1, 'Stopped'))).toBe(false); // lost race
    expect(await store.getPipe('org', 'svc', id)).toMatchObject({ state: 'Failed', version: 1 });
  });

  it('loads a whole service: pipes and the service record', async () => {
    const store = make();
    const org = `org-${Math.random()}`;
    for (const id of ['a', 'b'])
      expect(await store.savePipe({ ...record(id, 0), organizationId: org })).toBe(true);
    expect(await store.saveService({ ...service(0, 2), organizationId: org })).toBe(true);
    expect(await store.saveService({ ...service(0, 3), organizationId: org })).toBe(false);
    const state = await store.loadService(org, 'svc');
    expect(state.pipes.map((p) => p.pipeId).sort()).toEqual(['a', 'b']);
    expect(state.service).toMatchObject({ consecutiveFailures: 2 });
    expect(await store.loadService(org, 'other')).toEqual({ pipes: [], service: undefined });
  });
});

describe('dynamodb store under contention', () => {
  it('of five writers of the same version exactly one wins', async () => {
    const id = `race-${Math.random()}`;
    await dynamo.store().savePipe(record(id, 0));
    const writers = Array.from({ length: 5 }, (_, i) =>
      dynamo.store().savePipe(record(id, 1, `S${i}`)),
    );
    const results = await Promise.all(writers);
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await dynamo.store().getPipe('org', 'svc', id)).toMatchObject({
      state: `S${winner}`,
      version: 1,
    });
  });
});

describe('LocalStateStore file', () => {
  it('persists atomically and reloads', async () => {
    const file = path.join(dir, 'state', 'watchdog.json');
    await new LocalStateStore(file).savePipe(record('x', 0));
    expect(readdirSync(path.dirname(file))).toEqual(['watchdog.json']); // no temp files left
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { pipes: Record<string, PipeRecord> };
    expect(saved.pipes['org#svc#x']?.state).toBe('Running');
    expect(await new LocalStateStore(file).getPipe('org', 'svc', 'x')).toMatchObject({
      version: 0,
    });
  });

  it('coalesces concurrent writes without losing any', async () => {
    const file = path.join(dir, 'many.json');
    const store = new LocalStateStore(file);
    const ids = Array.from({ length: 50 }, (_, i) => `m${i}`);
    expect(await Promise.all(ids.map((id) => store.savePipe(record(id, 0))))).toEqual(
      ids.map(() => true),
    );
    const reloaded = await new LocalStateStore(file).loadService('org', 'svc');
    expect(reloaded.pipes.map((p) => p.pipeId).sort()).toEqual([...ids].sort());
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('recovers from a failed write: later saves are written, no temp file is left', async () => {
    const file = path.join(dir, 'blocked.json');
    const store = new LocalStateStore(file);
    expect(await store.savePipe(record('f0', 0))).toBe(true);
    // A directory where the file should be: every write fails until it is removed.
    rmSync(file);
    mkdirSync(path.join(file, 'inside'), { recursive: true });
    const first = store.savePipe(record('f1', 0));
    const queued = store.savePipe(record('f2', 0));
    await expect(first).rejects.toThrow();
    await expect(queued).rejects.toThrow();
    rmSync(file, { recursive: true });
    expect(await store.savePipe(record('f3', 0))).toBe(true);
    const reloaded = await new LocalStateStore(file).loadService('org', 'svc');
    expect(reloaded.pipes.map((p) => p.pipeId).sort()).toEqual(['f0', 'f1', 'f2', 'f3']);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('names the file and the field when the state file is invalid', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ pipes: { k: { state: 5 } } }));
    await expect(new LocalStateStore(file).getPipe('o', 's', 'p')).rejects.toThrow(
      /bad\.json.*pipes\.k/,
    );
    writeFileSync(file, '{nope');
    await expect(new LocalStateStore(file).getPipe('o', 's', 'p')).rejects.toThrow(
      /bad\.json is not JSON/,
    );
  });
});
