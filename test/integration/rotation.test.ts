/**
 * Key rotation against the sandbox over HTTP: the real SDK client, RotateSecret driving the
 * handler through the four steps, the sandbox clock for expiry.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  RotateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManagementClient } from '../../lib/api';
import { secretsManagerCredentials, staticCredentials } from '../../lib/credentials';
import { ownedNamePrefix, type RotationConfig } from '../../lib/keys';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import type { KeyRow } from '../../sandbox/index';
import { DAY, startRotationSandbox, TEST_CONFIG, type RotationSandbox } from './rotation-harness';

const LAMBDA = 'arn:aws:lambda:us-east-1:000000000000:function:cloudops-rotate-key';
const isRotatorKey = (k: KeyRow) => k.name.startsWith(TEST_CONFIG.namePrefix);
const usable = (k: KeyRow, now: number) =>
  k.state === 'enabled' && (k.expireAt === null || Date.parse(k.expireAt) > now);

function checkKeyInvariants(rs: RotationSandbox): void {
  const now = rs.sb.clock.now();
  const keys = rs.sb.store.state.keys;
  for (const key of keys.filter(isRotatorKey)) {
    expect(key.expireAt, `${key.name} has an expiry`).not.toBeNull();
    expect(Date.parse(key.expireAt!)).toBeLessThanOrEqual(
      Date.parse(key.createdAt) + TEST_CONFIG.lifetimeMs,
    );
  }
  expect(keys.filter((k) => isRotatorKey(k) && usable(k, now)).length).toBeLessThanOrEqual(2);
}

describe('five rotations in a row', () => {
  let rs: RotationSandbox;
  beforeAll(async () => {
    rs = await startRotationSandbox();
  });
  afterAll(() => rs.close());

  it('AWSCURRENT authenticates; the previous key works until its grace expiry, then 401', async () => {
    let previous = await rs.read('AWSCURRENT');
    const apiCalls: number[] = [];
    const serverCalls: number[] = [];
    // Invariants hold between steps too, not only after a whole rotation.
    rs.afterStep = () => Promise.resolve(checkKeyInvariants(rs));
    const deletes: number[] = [];
    let previousOfLast = previous;
    for (let round = 1; round <= 5; round++) {
      rs.counter.reset();
      rs.sb.requestLog.clear();
      const rotatedAt = rs.sb.clock.now();
      await rs.rotate();
      apiCalls.push(rs.counter.apiCalls);
      deletes.push(rs.counter.calls.filter((c) => c === 'api:deleteKey').length);
      previousOfLast = previous;
      serverCalls.push(rs.sb.requestLog.entries().filter((e) => e.surface === 'management').length);

      const current = await rs.read('AWSCURRENT');
      expect(current.keyId).not.toBe(previous.keyId);
      const expireAt = Date.parse(current.expireAt!);
      expect(expireAt).toBeGreaterThanOrEqual(rotatedAt + TEST_CONFIG.lifetimeMs);
      expect(expireAt).toBeLessThanOrEqual(rs.sb.clock.now() + TEST_CONFIG.lifetimeMs);
      expect(await rs.authenticates(current)).toBe(true);
      expect((await rs.read('AWSPREVIOUS')).keyId).toBe(previous.keyId);
      expect(await rs.authenticates(previous)).toBe(true);
      checkKeyInvariants(rs);
      // Every key (the seeded one included) now has an expiry.
      expect(rs.sb.store.state.keys.every((k) => k.expireAt !== null)).toBe(true);

      rs.sb.clock.advance(TEST_CONFIG.gracePeriodMs - 60_000);
      expect(await rs.authenticates(previous)).toBe(true);
      rs.sb.clock.advance(120_000);
      expect(await rs.authenticates(previous)).toBe(false);
      expect(await rs.authenticates(current)).toBe(true);
      checkKeyInvariants(rs);
      rs.sb.clock.advance(DAY);
      previous = current;
    }
    console.log(
      `API calls per rotation (rotator's count): ${apiCalls.join(', ')}; seen by the server: ${serverCalls.join(', ')} (goal <= 6)`,
    );
    expect(Math.max(...apiCalls)).toBeLessThanOrEqual(6);
    expect(serverCalls).toEqual(apiCalls);
    // Rotations 3-5 each deleted the key made two rotations earlier (expired by then): the
    // organization keeps the current and the previous rotator key, not one more per rotation.
    expect(deletes).toEqual([0, 0, 1, 1, 1]);
    const current = await rs.read('AWSCURRENT');
    expect(
      rs.sb.store.state.keys
        .filter(isRotatorKey)
        .map((k) => k.keySuffix)
        .sort(),
    ).toEqual([previousOfLast.keyId.slice(-4), current.keyId.slice(-4)].sort());
  });
});

describe('housekeeping: expired rotator keys are deleted in finishSecret', () => {
  let rs: RotationSandbox;
  beforeAll(async () => {
    rs = await startRotationSandbox();
  });
  afterAll(() => rs.close());

  it('at most three per rotation, oldest first, never the current or previous key, and safe to retry', async () => {
    const admin = await rs.read('AWSCURRENT');
    const { ARN } = await rs.sm.send(new DescribeSecretCommand({ SecretId: rs.secretId }));
    const prefix = ownedNamePrefix(TEST_CONFIG.namePrefix, ARN!);
    const api = createManagementClient({
      baseUrl: rs.sb.info.apiUrl,
      credentials: staticCredentials('admin', admin, managementKeySecret),
      rateLimit: false,
    });
    const now = rs.sb.clock.now();
    // A backlog from rotations long ago (expired), one stray usable key, one of another secret.
    const backlog: string[] = [];
    for (let i = 5; i >= 1; i--) {
      const made = await api.createKey({
        name: `${prefix}old-${i}`,
        roles: ['admin'],
        expireAt: new Date(now - i * DAY).toISOString(),
      });
      backlog.push(made.key.id);
    }
    const stray = await api.createKey({
      name: `${prefix}stray`,
      roles: ['admin'],
      expireAt: new Date(now + 10 * DAY).toISOString(),
    });
    const foreign = await api.createKey({
      name: `${TEST_CONFIG.namePrefix}other-secret-old`,
      roles: ['admin'],
      expireAt: new Date(now - DAY).toISOString(),
    });
    api.close();
    const exists = (id: string) => rs.sb.store.state.keys.some((k) => k.id === id);

    rs.counter.reset();
    await rs.rotate();
    expect(rs.counter.calls.filter((c) => c === 'api:deleteKey')).toHaveLength(3);
    expect(rs.counter.apiCalls).toBeLessThanOrEqual(6 + 3);
    // Oldest first: the three that expired earliest are gone.
    expect(backlog.filter(exists)).toEqual(backlog.slice(3));
    expect(rs.sb.store.state.keys.find((k) => k.id === stray.key.id)!.state).toBe('disabled');
    expect(exists(foreign.key.id)).toBe(true);
    const seed = await rs.read('AWSPREVIOUS');
    expect(await rs.authenticates(seed)).toBe(true);

    // The next rotation crashes right after its first delete; Secrets Manager retries it.
    rs.sb.clock.advance(DAY);
    const token = randomUUID();
    rs.counter.reset({ on: 'api:deleteKey', when: 'after' });
    await expect(rs.rotate(token)).rejects.toThrow(
      /injected crash after call \d+ \(api:deleteKey\)/,
    );
    rs.counter.reset();
    await rs.retry(token);
    expect(backlog.filter(exists)).toEqual([]);
    // Not this secret's keys, however old; the stray expires by itself (it is disabled).
    expect(exists(foreign.key.id)).toBe(true);
    expect(exists(stray.key.id)).toBe(true);
    const current = await rs.read('AWSCURRENT');
    const previous = await rs.read('AWSPREVIOUS');
    expect(await rs.authenticates(current)).toBe(true);
    expect(await rs.authenticates(previous)).toBe(true);
  });
});

describe('callers keep working through a rotation', () => {
  let rs: RotationSandbox;
  beforeAll(async () => {
    rs = await startRotationSandbox();
  });
  afterAll(() => rs.close());

  it('a cached old secret works during grace; after grace the refresh-on-401 path recovers with no failed call', async () => {
    // A function's view: the secret cached for a long time, refreshed only on a 401.
    const credentials = secretsManagerCredentials({
      client: rs.sm,
      secretId: rs.secretId,
      schema: managementKeySecret,
      ttlMs: 3_600_000,
    });
    const caller = createManagementClient({
      baseUrl: rs.sb.info.apiUrl,
      credentials,
      rateLimit: false,
    });
    try {
      const before = (await credentials.get()).keyId;
      await caller.listKeys();
      await rs.rotate();
      const after = (await rs.read('AWSCURRENT')).keyId;

      rs.sb.requestLog.clear();
      await caller.listKeys(); // still the cached old key, inside its grace
      expect(rs.sb.requestLog.entries().map((e) => [e.credential, e.status])).toEqual([
        [before.slice(-4), 200],
      ]);

      rs.sb.clock.advance(TEST_CONFIG.gracePeriodMs + 1000);
      rs.sb.requestLog.clear();
      await expect(caller.listKeys()).resolves.toBeInstanceOf(Array);
      const seen = rs.sb.requestLog
        .entries()
        .filter((e) => e.surface === 'management')
        .map((e) => [e.credential, e.status]);
      expect(seen).toEqual([
        [before.slice(-4), 401],
        [after.slice(-4), 200],
      ]);
      expect((await credentials.get()).keyId).toBe(after);
    } finally {
      caller.close();
    }
  });
});

describe('guards', () => {
  let rs: RotationSandbox;
  beforeAll(async () => {
    rs = await startRotationSandbox();
  });
  afterAll(() => rs.close());
  const step = (token: string, Step: string, SecretId = rs.secretId) =>
    rs.invoke({ SecretId, ClientRequestToken: token, Step });

  it('rotation disabled: every step refuses and nothing is made', async () => {
    const value = await rs.read('AWSCURRENT');
    await rs.sm.send(
      new CreateSecretCommand({ Name: 'not-rotating', SecretString: JSON.stringify(value) }),
    );
    rs.counter.reset();
    await expect(
      step('00000000-0000-4000-8000-000000000001', 'createSecret', 'not-rotating'),
    ).rejects.toThrow(/not-rotating is not enabled for rotation/);
    expect(rs.counter.apiCalls).toBe(0);
  });

  it('a token with no stage is an error', async () => {
    await expect(step('00000000-0000-4000-8000-000000000002', 'setSecret')).rejects.toThrow(
      /has no stage for rotation/,
    );
  });

  it('an event with a bad field is rejected naming it', async () => {
    await expect(
      rs.invoke({ SecretId: rs.secretId, ClientRequestToken: 'x', Step: 'dance' }),
    ).rejects.toThrow(/Step/);
  });

  it('the configuration test (RotateImmediately=false) runs testSecret on a valueless placeholder and makes nothing', async () => {
    const keys = rs.sb.store.state.keys.length;
    const current = await rs.read('AWSCURRENT');
    rs.counter.reset();
    await rs.sm.send(
      new RotateSecretCommand({
        SecretId: rs.secretId,
        RotateImmediately: false,
        ClientRequestToken: '00000000-0000-4000-8000-000000000003',
      }),
    );
    expect(rs.counter.apiCalls).toBe(0);
    expect(rs.sb.store.state.keys).toHaveLength(keys);
    expect((await rs.read('AWSCURRENT')).keyId).toBe(current.keyId);
  });

  it('createSecret fills the valueless AWSPENDING placeholder RotateSecret made; a token already AWSCURRENT is a no-op', async () => {
    const token = await rs.rotate();
    const stages = await rs.stages();
    expect(stages[token]).toContain('AWSCURRENT');
    rs.counter.reset();
    for (const s of ['createSecret', 'setSecret', 'testSecret', 'finishSecret'])
      await step(token, s);
    expect(rs.counter.apiCalls).toBe(0);
    expect(rs.counter.calls.every((c) => c === 'sm:DescribeSecret')).toBe(true);
    expect(await rs.stages()).toEqual(stages);
  });

  it('a token that is not AWSPENDING (an AWSPREVIOUS version) is an error', async () => {
    const first = Object.entries(await rs.stages()).find(([, s]) => s.includes('AWSCURRENT'))![0];
    await rs.rotate();
    expect((await rs.stages())[first]).toEqual(['AWSPREVIOUS']);
    await expect(step(first, 'setSecret')).rejects.toThrow(/is not set as AWSPENDING/);
  });
});

describe('a malformed secret', () => {
  let rs: RotationSandbox;
  beforeAll(async () => {
    rs = await startRotationSandbox();
  });
  afterAll(() => rs.close());

  it.each([
    // Roles are checked against the key's own record, so one read happens first; a role the
    // key does not hold is refused before any write.
    [
      'roles the key does not hold',
      (v: Record<string, unknown>) => ({ ...v, roles: ['developer'] }),
      /field roles/,
      1,
    ],
    ['mistyped keyId', (v: Record<string, unknown>) => ({ ...v, keyId: 42 }), /keyId/, 0],
    [
      'mistyped expireAt',
      (v: Record<string, unknown>) => ({ ...v, expireAt: 'tomorrow' }),
      /expireAt/,
      0,
    ],
    ['not JSON', () => 'not json', /not valid JSON/, 0],
  ] as const)(
    '%s: fails naming the secret id and the field, and creates nothing',
    async (label, mutate, field, reads) => {
      const good = (await rs.read('AWSCURRENT')) as ManagementKeySecret & Record<string, unknown>;
      const name = `malformed-${label.replace(/\W+/g, '-')}`;
      const value = mutate(good);
      await rs.sm.send(
        new CreateSecretCommand({
          Name: name,
          SecretString: typeof value === 'string' ? value : JSON.stringify(value),
        }),
      );
      const keys = rs.sb.store.state.keys.length;
      rs.counter.reset();
      const error = await rs.sm
        .send(new RotateSecretCommand({ SecretId: name, RotationLambdaARN: LAMBDA }))
        .then(
          () => undefined,
          (e: unknown) => e as Error,
        );
      expect(error?.message).toMatch(new RegExp(name));
      expect(error?.message).toMatch(field);
      expect(error?.message).not.toContain(good.keySecret);
      expect(rs.counter.apiCalls).toBe(reads);
      expect(rs.sb.store.state.keys).toHaveLength(keys);
    },
  );
});

describe('admin-secret mode', () => {
  let rs: RotationSandbox;
  beforeAll(async () => {
    rs = await startRotationSandbox();
  });
  afterAll(() => rs.close());

  it('a developer key is rotated with a separate admin key and tested with a read it is allowed', async () => {
    const admin = await rs.read('AWSCURRENT');
    await rs.sm.send(
      new CreateSecretCommand({ Name: 'admin-key', SecretString: JSON.stringify(admin) }),
    );
    const adminClient = createManagementClient({
      baseUrl: rs.sb.info.apiUrl,
      credentials: staticCredentials('admin', admin, managementKeySecret),
      rateLimit: false,
    });
    const made = await adminClient.createKey({ name: 'dev', roles: ['developer'] });
    adminClient.close();
    const dev = {
      organizationId: admin.organizationId,
      keyId: made.keyId!,
      keySecret: made.keySecret!,
      keyRecordId: made.key.id,
      roles: ['developer'],
      ipAccessList: [{ source: '127.0.0.1', description: 'loopback' }],
    };
    await rs.sm.send(
      new CreateSecretCommand({ Name: 'dev-key', SecretString: JSON.stringify(dev) }),
    );
    (rs.deps as { config: RotationConfig }).config = {
      ...TEST_CONFIG,
      adminSecretId: 'admin-key',
      testCall: { kind: 'list-pipes', serviceId: rs.sb.info.serviceId },
    };

    rs.sb.requestLog.clear();
    await rs.sm.send(new RotateSecretCommand({ SecretId: 'dev-key', RotationLambdaARN: LAMBDA }));
    const current = managementKeySecret.parse(
      JSON.parse(
        (await rs.sm.send(new GetSecretValueCommand({ SecretId: 'dev-key' }))).SecretString!,
      ),
    );
    const record = rs.sb.store.state.keys.find((k) => k.keySuffix === current.keyId.slice(-4))!;
    expect(record.roles).toEqual(['developer']);
    expect(record.ipAccessList).toEqual(dev.ipAccessList);
    // Key management ran with the admin key; only the test read used the new developer key.
    const used = rs.sb.requestLog
      .entries()
      .filter((e) => e.surface === 'management')
      .map((e) => `${e.method} ${e.credential === admin.keyId.slice(-4) ? 'admin' : 'new'}`);
    expect(used).toEqual(['GET admin', 'POST admin', 'GET new', 'GET admin', 'PATCH admin']);
    expect(rs.sb.store.state.keys.find((k) => k.id === dev.keyRecordId)!.expireAt).not.toBeNull();
  });
});
