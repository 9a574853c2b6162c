/**
 * The version stores behind out-of-order protection: DynamoDB (dynalite over loopback, the real
 * SDK client), the CLI's file and the in-memory one must all refuse to go backwards, and
 * claimVersion must tell a newer, a redelivered and an older event apart.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimVersion,
  compactDeclaration,
  createVersionTable,
  declaredOwnerHash,
  DynamoVersionStore,
  FileVersionStore,
  MAX_DECLARED_OWNERS,
  MemoryVersionStore,
  versionScope,
  type VersionStore,
} from '../../../lib/alerts';
import { startLocalDynamo, type LocalDynamo } from '../../support/local-dynamo';

const TABLE = 'cloudops-alert-versions';
let dynamo: LocalDynamo;
let dir: string;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  await createVersionTable(dynamo.client, TABLE);
  dir = mkdtempSync(path.join(tmpdir(), 'alert-versions-'));
});
afterAll(async () => {
  await dynamo.close();
  rmSync(dir, { recursive: true, force: true });
});

const t = (s: number) => new Date(Date.UTC(2025, 0, 1) + s * 1000).toISOString();
const key = () => `service/s#d/${Math.random()}`;

/** Each call is a separate store over the same place (another Lambda instance, another run). */
const kinds: [string, () => () => VersionStore][] = [
  [
    'dynamodb (dynalite)',
    () => () => new DynamoVersionStore({ client: dynamo.client, tableName: TABLE }),
  ],
  [
    'file',
    () => {
      const file = path.join(dir, `${Math.random()}.json`);
      return () => new FileVersionStore(file);
    },
  ],
  [
    'memory',
    () => {
      const shared = new MemoryVersionStore();
      return () => shared;
    },
  ],
];

describe.each(kinds)('%s version store', (_name, place) => {
  it('advances only to a newer version, comparing instants, never going back', async () => {
    const open = place();
    const store = open();
    const k = key();
    expect(await store.get(k)).toBeUndefined();
    expect(await store.advance(k, t(10))).toBe(true);
    expect(await store.advance(k, t(10))).toBe(false); // same
    expect(await store.advance(k, t(5))).toBe(false); // older
    expect(await store.advance(k, '2025-01-01T00:00:10+00:00')).toBe(false); // same instant
    expect(await store.advance(k, '2025-01-01T01:00:30+01:00')).toBe(true); // = t(30)
    expect(await store.advance(k, t(20))).toBe(false);
    expect(await open().get(k)).toBe('2025-01-01T01:00:30+01:00');
    expect(await open().get(key())).toBeUndefined();
  });

  it('of concurrent advances on separate stores the newest ends up stored', async () => {
    const open = place();
    const k = key();
    const versions = [7, 3, 9, 1, 8, 2, 6, 4, 5].map(t);
    const results = await Promise.all(versions.map((v) => open().advance(k, v)));
    expect(results.some(Boolean)).toBe(true);
    expect(await open().get(k)).toBe(t(9));
    // Whatever raced, nothing older than the stored version can get in afterwards.
    expect(await open().advance(k, t(8))).toBe(false);
  });

  it('keeps the declaration of the newest version only, replaced or cleared with it', async () => {
    const open = place();
    const k = key();
    const d1 = compactDeclaration('one', ['d/x/Errors/A', 'd/x/Latency/B'])!;
    const d2 = compactDeclaration('two', ['d/x/Errors/A'])!;
    const none = compactDeclaration('none', [])!;
    expect(await open().newest!(k)).toBeUndefined();
    expect(await open().advance(k, t(10), d1)).toBe(true);
    expect(await open().newest!(k)).toEqual({ version: t(10), declaration: d1 });
    expect(await open().advance(k, t(5), d2)).toBe(false); // older: its declaration is not kept
    expect(await open().newest!(k)).toEqual({ version: t(10), declaration: d1 });
    expect(await claimVersion(open(), k, t(20), none)).toEqual({
      status: 'advanced',
      previous: t(10),
    });
    expect(await open().newest!(k)).toEqual({ version: t(20), declaration: none });
    expect(await open().advance(k, t(30))).toBe(true); // none given: the older one must not stay
    expect(await open().newest!(k)).toEqual({ version: t(30) });
  });

  it('claimVersion: newer is advanced, the same is current (redelivery), older is stale', async () => {
    const store = place()();
    const k = key();
    expect(await claimVersion(store, k, t(1))).toEqual({ status: 'advanced', previous: undefined });
    expect(await claimVersion(store, k, t(3))).toEqual({ status: 'advanced', previous: t(1) });
    expect(await claimVersion(store, k, t(3))).toEqual({ status: 'current' });
    expect(await claimVersion(store, k, t(2))).toEqual({ status: 'stale', newest: t(3) });
    expect(await store.get(k)).toBe(t(3));
  });
});

describe('claimVersion', () => {
  it('settles a lost race by reading again', async () => {
    // A store whose first advance loses to a writer that recorded a newer version meanwhile.
    const inner = new MemoryVersionStore();
    let raced = false;
    const racing: VersionStore = {
      label: 'racing',
      get: (k) => inner.get(k),
      async advance(k, v) {
        if (!raced) {
          raced = true;
          await inner.advance(k, t(50));
        }
        return inner.advance(k, v);
      },
    };
    expect(await claimVersion(racing, 'k', t(40))).toEqual({ status: 'stale', newest: t(50) });
  });

  it('rejects a version that is not a time, naming it', async () => {
    await expect(claimVersion(new MemoryVersionStore(), 'k', 'yesterday')).rejects.toThrow(
      /version "yesterday" is not an ISO time/,
    );
  });

  it('scopes keys by where the alerts live', () => {
    expect(versionScope({ mode: 'managed', serviceId: 's1' })).toBe('service/s1');
    expect(versionScope({ mode: 'open-source', observabilityUrl: 'http://x' })).toBe(
      'api/http://x',
    );
  });
});

describe('FileVersionStore', () => {
  it('merges with what another process wrote and survives a restart', async () => {
    const file = path.join(dir, 'nested', 'versions.json');
    const a = new FileVersionStore(file);
    const b = new FileVersionStore(file);
    expect(await a.advance('x', t(1))).toBe(true);
    expect(await b.get('x')).toBe(t(1));
    expect(await b.advance('y', t(2))).toBe(true);
    // a read its copy before b wrote y: its next write keeps y.
    expect(await a.advance('x', t(3))).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ versions: { x: t(3), y: t(2) } });
    expect(await a.advance('y', t(1))).toBe(false);
  });

  it('takes over a lock left by a crashed run', async () => {
    const file = path.join(dir, 'crashed.json');
    writeFileSync(`${file}.lock`, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    expect(await new FileVersionStore(file).advance('x', t(1))).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a damaged file fails naming the file and the field', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ versions: { x: 'soon' } }));
    await expect(new FileVersionStore(file).get('x')).rejects.toThrow(
      /alert version file .*bad\.json is invalid: versions\.x: /,
    );
    writeFileSync(file, '{');
    await expect(new FileVersionStore(file).advance('x', t(1))).rejects.toThrow(/is not JSON/);
  });
});

describe('compactDeclaration', () => {
  it('hashes each owner to 16 characters, deduplicated and sorted, bounded in count', () => {
    const long = `d/${'x'.repeat(5000)}/T/A`;
    const d = compactDeclaration('dg', [long, 'r/k', long])!;
    expect(d.digest).toBe('dg');
    expect(d.owners).toEqual([declaredOwnerHash(long), declaredOwnerHash('r/k')].sort());
    expect(d.owners.every((o) => /^[A-Za-z0-9_-]{16}$/.test(o))).toBe(true);
    const many = Array.from({ length: MAX_DECLARED_OWNERS + 1 }, (_, i) => `d/k/T/${i}`);
    expect(compactDeclaration('dg', many)).toBeUndefined();
    expect(compactDeclaration('dg', many.slice(1))?.owners).toHaveLength(MAX_DECLARED_OWNERS);
  });
});

describe('DynamoVersionStore', () => {
  it('stores the largest declaration allowed in one item (under 400 KB)', async () => {
    const store = new DynamoVersionStore({ client: dynamo.client, tableName: TABLE });
    const owners = Array.from({ length: MAX_DECLARED_OWNERS }, (_, i) => `d/k/T/${i}`);
    const declaration = compactDeclaration('dg', owners)!;
    expect(await store.advance('big', t(1), declaration)).toBe(true);
    expect(await store.newest('big')).toEqual({ version: t(1), declaration });
  });

  it('a damaged item fails naming the key', async () => {
    await dynamo.client.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: { pk: { S: 'broken' }, version: { S: 'whenever' } },
      }),
    );
    const store = new DynamoVersionStore({ client: dynamo.client, tableName: TABLE });
    await expect(store.get('broken')).rejects.toThrow(/stored alert version broken in .* invalid/);
  });

  it('stores the instant, the text and when it was written', async () => {
    const store = new DynamoVersionStore({
      client: dynamo.client,
      tableName: TABLE,
      now: () => Date.UTC(2030, 0, 1),
    });
    await store.advance('shape', '2025-01-01T01:00:00+01:00');
    const out = await dynamo.client.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'shape' } } }),
    );
    expect(out.Item).toEqual({
      pk: { S: 'shape' },
      versionMs: { N: String(Date.UTC(2025, 0, 1)) },
      version: { S: '2025-01-01T01:00:00+01:00' },
      updatedAt: { S: '2030-01-01T00:00:00.000Z' },
    });
  });
});
