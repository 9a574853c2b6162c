/**
 * Every guard of the rotator (lib/keys/rotation.ts) pinned by what an operator or a consumer
 * of the key would see: which keys exist, work, are disabled or expire when, what the secret's
 * labels hold, and the error a failed step reports. In-memory fakes (rotation-fakes.ts) keep
 * these fast; the sandbox-backed tests in test/integration cover the same flows over HTTP.
 */
import { describe, expect, it } from 'vitest';
import {
  rotateLocally,
  runRotationStep,
  roleAssignmentFor,
  testCallFor,
  ROTATION_STEPS,
  ownedNamePrefix,
  type RotationConfig,
  type RotationStep,
} from '../../../lib/keys';
import { createLogger } from '../../../lib/log';
import { CONFIG, DAY, T0, world, type World } from './rotation-fakes';

const SERVICE = '7a1f6a0e-1c2b-4d3e-8f90-123456789abc';
const iso = (ms: number) => new Date(ms).toISOString();

/** What RotateSecret does first: a valueless AWSPENDING version under the token. */
function placeholder(w: World, token = 'tok-1'): { secretId: string; token: string } {
  w.secrets.seed(token, undefined, ['AWSPENDING']);
  return { secretId: w.secrets.name, token };
}

async function steps(w: World, request: { secretId: string; token: string }, upTo: RotationStep) {
  for (const step of ROTATION_STEPS) {
    await runRotationStep(w.deps, step, request);
    if (step === upTo) return;
  }
}

function withLog(w: World): string[] {
  const lines: string[] = [];
  w.deps = { ...w.deps, logger: createLogger({ level: 'debug', sink: (l) => lines.push(l) }) };
  return lines;
}
const levels = (lines: string[], level: string) =>
  lines
    .map((l) => JSON.parse(l) as { level: string; msg?: string; message?: string })
    .filter((l) => l.level === level);

describe('createSecret', () => {
  it('stores the new key under AWSPENDING: a fresh key, the owned name, expiry = now + lifetime', async () => {
    const w = world();
    const request = placeholder(w);
    await runRotationStep(w.deps, 'createSecret', request);
    const pending = w.secrets.value('AWSPENDING');
    const current = w.secrets.value('AWSCURRENT');
    expect(pending.keyId).not.toBe(current.keyId);
    expect(pending.organizationId).toBe(current.organizationId);
    expect(pending.roles).toEqual(['admin']);
    expect(pending.keyName).toBe(`${w.prefix}20260101T000000.000Z`);
    expect(pending.expireAt).toBe(iso(T0 + 30 * DAY));
    // Nothing exists on the service yet: the value is stored first, so no crash loses a key.
    expect(w.keys.calls).toEqual([]);
  });

  it('a retry keeps the value already stored (the key it names may exist already)', async () => {
    const w = world();
    const request = placeholder(w);
    await runRotationStep(w.deps, 'createSecret', request);
    const first = w.secrets.value('AWSPENDING');
    w.clock.now += 60_000;
    await runRotationStep(w.deps, 'createSecret', request);
    expect(w.secrets.value('AWSPENDING')).toEqual(first);
    expect(w.secrets.writes.filter((x) => x.startsWith('put:'))).toHaveLength(1);
  });

  it('a malformed current value fails naming the field, and nothing is stored', async () => {
    const w = world();
    w.secrets.seed('v0', JSON.stringify({ organizationId: 'not-a-uuid' }), ['AWSCURRENT']);
    await expect(runRotationStep(w.deps, 'createSecret', placeholder(w))).rejects.toThrow(
      /AWSCURRENT/,
    );
    expect(w.secrets.writes).toEqual([]);
  });

  it('the names of two secrets never share a prefix (ownership is per deployment)', () => {
    const a = ownedNamePrefix(CONFIG.namePrefix, 'arn:aws:secretsmanager:r:1:secret:k-AAAAAA');
    const b = ownedNamePrefix(CONFIG.namePrefix, 'arn:aws:secretsmanager:r:1:secret:k-BBBBBB');
    expect(a.startsWith(CONFIG.namePrefix)).toBe(true);
    expect(a).not.toBe(b);
  });
});

describe('a step whose token is already AWSCURRENT (a finished rotation retried)', () => {
  it.each(['createSecret', 'setSecret', 'testSecret'] as const)('%s does nothing', async (step) => {
    const w = world();
    await runRotationStep(w.deps, step, { secretId: w.secrets.name, token: 'v0' });
    expect(w.secrets.writes).toEqual([]);
    expect(w.keys.calls).toEqual([]);
  });

  it('finishSecret does nothing once AWSPENDING is gone', async () => {
    const w = world();
    await runRotationStep(w.deps, 'finishSecret', { secretId: w.secrets.name, token: 'v0' });
    expect(w.secrets.writes).toEqual([]);
    expect(w.keys.calls).toEqual([]);
  });
});

describe('setSecret', () => {
  it('makes the key from the stored hashes, with its expiry and the current roles', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    const pending = w.secrets.value('AWSPENDING');
    const made = w.keys.byName(pending.keyName!);
    expect(made).toMatchObject({
      expireAt: iso(T0 + 30 * DAY),
      roles: ['admin'],
      state: 'enabled',
      keySuffix: pending.keyId.slice(-4),
    });
    expect(made).not.toHaveProperty('ipAccessList');
    // The new key authenticates: listing keys with it works.
    const api = w.keys.connect({ get: () => Promise.resolve(pending) });
    await expect(api.listKeys()).resolves.toHaveLength(2);
  });

  it("copies the current value's IP access list to the new key", async () => {
    const w = world();
    const ipAccessList = [{ source: '10.0.0.0/8', description: 'vpc' }];
    const current = w.secrets.value('AWSCURRENT');
    w.secrets.seed('v0', JSON.stringify({ ...current, ipAccessList }), ['AWSCURRENT']);
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    expect(w.keys.byName(w.secrets.value('AWSPENDING').keyName!)?.ipAccessList).toEqual(
      ipAccessList,
    );
  });

  it('refuses an AWSPENDING value that expired before its key was made', async () => {
    const w = world();
    const request = placeholder(w);
    await runRotationStep(w.deps, 'createSecret', request);
    w.clock.now = T0 + 30 * DAY;
    await expect(runRotationStep(w.deps, 'setSecret', request)).rejects.toThrow(
      /AWSPENDING version of .* expired .*remove its AWSPENDING label and rotate again/,
    );
    expect(w.keys.calls).toEqual([]);
    w.clock.now = T0 + 30 * DAY - 1;
    await runRotationStep(w.deps, 'setSecret', request);
    expect(w.keys.calls.filter((c) => c.startsWith('createKey'))).toHaveLength(1);
  });

  it('without a stored value (createSecret never ran) fails saying so', async () => {
    const w = world();
    await expect(runRotationStep(w.deps, 'setSecret', placeholder(w))).rejects.toThrow(
      /createSecret has not run/,
    );
    expect(w.keys.calls).toEqual([]);
  });

  it('a retry after the key was made makes no second key and disables nothing', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    w.keys.calls.length = 0;
    await runRotationStep(w.deps, 'setSecret', request);
    expect(w.keys.calls).toEqual(['listKeys']);
    expect(w.keys.keys).toHaveLength(2);
  });

  it('a 409 (an earlier attempt made the key after our list) is success; other errors are not', async () => {
    const w = world();
    const request = placeholder(w);
    await runRotationStep(w.deps, 'createSecret', request);
    w.keys.failNext.set('createKey', [409]);
    await expect(runRotationStep(w.deps, 'setSecret', request)).resolves.toBeUndefined();
    w.keys.failNext.set('createKey', [500]);
    await expect(runRotationStep(w.deps, 'setSecret', request)).rejects.toMatchObject({
      status: 500,
    });
  });

  it("disables this rotator's other usable keys, never the current one nor anyone else's", async () => {
    const w = world(CONFIG, { owned: true });
    const older = w.keys.add({ name: `${w.prefix}20251101T000000.000Z` }).record;
    const disabled = w.keys.add({ name: `${w.prefix}20251001T000000.000Z`, state: 'disabled' });
    const expired = w.keys.add({
      name: `${w.prefix}20250901T000000.000Z`,
      expireAt: iso(T0 - 1),
    });
    const other = ownedNamePrefix(CONFIG.namePrefix, 'arn:aws:secretsmanager:r:2:secret:x-QQQQQQ');
    const foreign = w.keys.add({ name: `${other}20251101T000000.000Z` }).record;
    const hand = w.keys.add({ name: 'ci-pipeline' }).record;
    await steps(w, placeholder(w), 'setSecret');
    expect(w.keys.calls.filter((c) => c.startsWith('updateKey'))).toEqual([
      `updateKey:${older.name}:disabled`,
    ]);
    expect(w.current.record.id).toBeDefined();
    expect(w.keys.byName(w.current.record.name)?.state).toBe('enabled');
    expect(foreign.state).toBe('enabled');
    expect(hand.state).toBe('enabled');
    expect(disabled.record.state).toBe('disabled');
    expect(expired.record.state).toBe('enabled');
  });

  it('an expired key exactly at its expiry is not disabled (it is unusable already)', async () => {
    const w = world();
    w.keys.add({ name: `${w.prefix}20250901T000000.000Z`, expireAt: iso(T0) });
    await steps(w, placeholder(w), 'setSecret');
    expect(w.keys.calls.filter((c) => c.startsWith('updateKey'))).toEqual([]);
  });

  it('admin mode: keys are managed with the admin secret, the new key gets the current roles', async () => {
    const config: RotationConfig = { ...CONFIG, adminSecretId: 'cloudops/admin' };
    const w = world(config, { roles: ['developer'] });
    const admin = w.keys.add({ name: 'admin-key' });
    w.sm
      .add('cloudops/admin', 'arn:admin')
      .seed('a0', JSON.stringify(admin.secret), ['AWSCURRENT']);
    await steps(w, placeholder(w), 'setSecret');
    const made = w.keys.byName(w.secrets.value('AWSPENDING').keyName!);
    expect(made?.roles).toEqual(['developer']);
    expect(new Set(w.keys.callers)).toEqual(new Set(['admin-key']));
  });
});

describe('testSecret', () => {
  it('a placeholder without a value (the configuration test) calls nothing', async () => {
    const w = world();
    await runRotationStep(w.deps, 'testSecret', placeholder(w));
    expect(w.keys.calls).toEqual([]);
  });

  it('an admin key proves itself by listing keys with the new key', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    w.keys.calls.length = 0;
    w.keys.callers.length = 0;
    await runRotationStep(w.deps, 'testSecret', request);
    expect(w.keys.calls).toEqual(['listKeys']);
    expect(w.keys.callers).toEqual([w.secrets.value('AWSPENDING').keyName]);
  });

  it('a key that does not work fails the step and is deleted (no keys pile up)', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    const name = w.secrets.value('AWSPENDING').keyName!;
    w.keys.byName(name)!.state = 'disabled';
    await expect(runRotationStep(w.deps, 'testSecret', request)).rejects.toMatchObject({
      status: 401,
    });
    expect(w.keys.byName(name)).toBeUndefined();
    expect(w.keys.keys).toHaveLength(1);
  });

  it('when the cleanup fails, the test failure is what is reported', async () => {
    const w = world();
    const log = withLog(w);
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    const name = w.secrets.value('AWSPENDING').keyName!;
    w.keys.byName(name)!.state = 'disabled';
    w.keys.failNext.set('deleteKey', [500]);
    await expect(runRotationStep(w.deps, 'testSecret', request)).rejects.toMatchObject({
      status: 401,
    });
    expect(w.keys.byName(name)).toBeDefined();
    expect(levels(log, 'error')).toHaveLength(1);
  });

  it('a key already gone when the cleanup runs is no cleanup error', async () => {
    const w = world();
    const log = withLog(w);
    const request = placeholder(w);
    await runRotationStep(w.deps, 'createSecret', request);
    // The key was never made (setSecret skipped): the failing test finds nothing to delete.
    await expect(runRotationStep(w.deps, 'testSecret', request)).rejects.toMatchObject({
      status: 401,
    });
    expect(w.keys.calls).toEqual(['listKeys']);
    expect(levels(log, 'error')).toEqual([]);
  });

  it('a key deleted between list and delete (404) is no cleanup error', async () => {
    const w = world();
    const log = withLog(w);
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    w.keys.byName(w.secrets.value('AWSPENDING').keyName!)!.state = 'disabled';
    w.keys.failNext.set('deleteKey', [404]);
    await expect(runRotationStep(w.deps, 'testSecret', request)).rejects.toMatchObject({
      status: 401,
    });
    expect(levels(log, 'error')).toEqual([]);
  });

  it('auto: a key without the admin role passes on a 403 (the service accepted it)', async () => {
    const config: RotationConfig = { ...CONFIG, adminSecretId: 'cloudops/admin' };
    const w = world(config, { roles: ['developer'] });
    const admin = w.keys.add({ name: 'admin-key' });
    w.sm
      .add('cloudops/admin', 'arn:admin')
      .seed('a0', JSON.stringify(admin.secret), ['AWSCURRENT']);
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    expect(w.keys.byName(w.secrets.value('AWSPENDING').keyName!)).toBeDefined();
  });

  it('list-keys configured: a 403 is a failure (that key cannot list keys)', async () => {
    const config: RotationConfig = {
      ...CONFIG,
      adminSecretId: 'cloudops/admin',
      testCall: { kind: 'list-keys' },
    };
    const w = world(config, { roles: ['developer'] });
    const admin = w.keys.add({ name: 'admin-key' });
    w.sm
      .add('cloudops/admin', 'arn:admin')
      .seed('a0', JSON.stringify(admin.secret), ['AWSCURRENT']);
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    await expect(runRotationStep(w.deps, 'testSecret', request)).rejects.toMatchObject({
      status: 403,
    });
    expect(w.keys.keys.map((k) => k.name).sort()).toEqual(['admin-key', 'seeded-by-hand']);
  });

  it('authenticate: a 401 is still a failure', async () => {
    const w = world({ ...CONFIG, testCall: { kind: 'authenticate' } });
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    w.keys.byName(w.secrets.value('AWSPENDING').keyName!)!.state = 'disabled';
    await expect(runRotationStep(w.deps, 'testSecret', request)).rejects.toMatchObject({
      status: 401,
    });
  });

  it('list-pipes: lists the configured service with the new key', async () => {
    const w = world({ ...CONFIG, testCall: { kind: 'list-pipes', serviceId: SERVICE } });
    const request = placeholder(w);
    await steps(w, request, 'setSecret');
    w.keys.calls.length = 0;
    await runRotationStep(w.deps, 'testSecret', request);
    expect(w.keys.calls).toEqual([`listPipes:${SERVICE}`]);
  });

  it('testCallFor: a configured call is kept; auto picks from the roles', () => {
    expect(testCallFor({ kind: 'list-keys' }, { roles: ['developer'] })).toEqual({
      kind: 'list-keys',
    });
    expect(testCallFor({ kind: 'auto' }, { roles: ['developer', 'admin'] })).toEqual({
      kind: 'list-keys',
    });
    expect(testCallFor({ kind: 'auto' }, { roles: ['developer'] })).toEqual({
      kind: 'authenticate',
    });
    expect(testCallFor({ kind: 'auto' }, {})).toEqual({ kind: 'authenticate' });
  });
});

describe('finishSecret', () => {
  it('moves AWSCURRENT, cuts the previous key to now + grace, drops AWSPENDING', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.clock.now = T0 + 3_600_000;
    w.keys.callers.length = 0;
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(w.secrets.stagesOf('tok-1')).toEqual(['AWSCURRENT']);
    expect(w.secrets.stagesOf('v0')).toEqual(['AWSPREVIOUS']);
    const name = w.secrets.value('AWSCURRENT').keyName!;
    expect(w.keys.byName(name)).toMatchObject({ state: 'enabled', expireAt: iso(T0 + 30 * DAY) });
    expect(w.current.record.expireAt).toBe(iso(T0 + 3_600_000 + DAY));
    expect(w.current.record.state).toBe('enabled');
    // The new key, tested, does the work (no admin secret configured).
    expect(new Set(w.keys.callers)).toEqual(new Set([name]));
  });

  it('admin mode: the admin key does the work', async () => {
    const config: RotationConfig = { ...CONFIG, adminSecretId: 'cloudops/admin' };
    const w = world(config, { roles: ['developer'] });
    const admin = w.keys.add({ name: 'admin-key' });
    w.sm
      .add('cloudops/admin', 'arn:admin')
      .seed('a0', JSON.stringify(admin.secret), ['AWSCURRENT']);
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.keys.callers.length = 0;
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(new Set(w.keys.callers)).toEqual(new Set(['admin-key']));
    expect(w.current.record.expireAt).toBe(iso(T0 + DAY));
  });

  it('no key for the AWSPENDING value: fails saying setSecret has not completed, labels stay', async () => {
    const w = world();
    const request = placeholder(w);
    await runRotationStep(w.deps, 'createSecret', request);
    // The pending key is not on the service; the current key (as admin secret) reads the list.
    const writes = w.secrets.writes.length;
    await expect(
      runRotationStep(
        { ...w.deps, config: { ...CONFIG, adminSecretId: w.secrets.name } },
        'finishSecret',
        request,
      ),
    ).rejects.toThrow(/No key matches the AWSPENDING version .*setSecret has not completed/);
    expect(w.secrets.writes.length).toBe(writes);
    expect(w.secrets.stagesOf('v0')).toEqual(['AWSCURRENT']);
  });

  it('a label move that fails leaves the previous key uncut (consumers still read it)', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.secrets.failMoveCurrent = 1;
    await expect(runRotationStep(w.deps, 'finishSecret', request)).rejects.toThrow(
      /label move failed/,
    );
    expect(w.current.record.expireAt).toBeNull();
    expect(w.secrets.stagesOf('v0')).toEqual(['AWSCURRENT']);
    // The retry finishes the job.
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(w.current.record.expireAt).toBe(iso(T0 + DAY));
  });

  it('a retry after the move (token AWSCURRENT and still AWSPENDING) cuts and drops AWSPENDING', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    // The move happened, then the process died: AWSCURRENT + AWSPENDING on the token.
    w.secrets.versions.get('tok-1')!.stages = ['AWSPENDING', 'AWSCURRENT'];
    w.secrets.versions.get('v0')!.stages = ['AWSPREVIOUS'];
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(w.current.record.expireAt).toBe(iso(T0 + DAY));
    expect(w.secrets.stagesOf('tok-1')).toEqual(['AWSCURRENT']);
    const name = w.secrets.value('AWSCURRENT').keyName!;
    expect(w.keys.byName(name)?.expireAt).toBe(iso(T0 + 30 * DAY));
  });

  it('a retry after the move never cuts the current key even when AWSPREVIOUS names it', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    const value = w.secrets.versions.get('tok-1')!.value!;
    w.secrets.seed('tok-1', value, ['AWSPENDING', 'AWSCURRENT']);
    w.secrets.seed('v0', value, ['AWSPREVIOUS']);
    await runRotationStep(w.deps, 'finishSecret', request);
    const name = (JSON.parse(value) as { keyName: string }).keyName;
    expect(w.keys.byName(name)?.expireAt).toBe(iso(T0 + 30 * DAY));
    expect(w.keys.calls.filter((c) => c.startsWith('updateKey'))).toEqual([]);
  });

  it('cuts only keys that would outlive the grace: never lengthens, equal is left alone', async () => {
    for (const [expireAt, cut] of [
      [iso(T0 + DAY), false],
      [iso(T0 + DAY - 1), false],
      [iso(T0 + DAY + 1), true],
      [null, true],
    ] as const) {
      const w = world();
      w.current.record.expireAt = expireAt;
      const request = placeholder(w);
      await steps(w, request, 'testSecret');
      w.keys.calls.length = 0;
      await runRotationStep(w.deps, 'finishSecret', request);
      expect(w.current.record.expireAt, String(expireAt)).toBe(cut ? iso(T0 + DAY) : expireAt);
      expect(w.keys.calls.some((c) => c.includes('expireAt='))).toBe(cut);
    }
  });

  it('also cuts the key AWSPREVIOUS holds (an earlier rotation that never cut it)', async () => {
    const w = world();
    const old = w.keys.add({ name: 'older-by-hand' });
    w.secrets.seed('vOld', JSON.stringify(old.secret), ['AWSPREVIOUS']);
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.clock.now = T0 + 60_000;
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(old.record.expireAt).toBe(iso(T0 + 60_000 + DAY));
    expect(w.current.record.expireAt).toBe(iso(T0 + 60_000 + DAY));
  });

  it('a previous key without a record (deleted by hand) does not stop the rotation', async () => {
    const w = world();
    const log = withLog(w);
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.keys.keys.splice(w.keys.keys.indexOf(w.keys.byName('seeded-by-hand')!), 1);
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(w.secrets.stagesOf('tok-1')).toEqual(['AWSCURRENT']);
    expect(levels(log, 'warn')).toHaveLength(1);
  });

  it("tidies the rotator's other keys: disables usable ones, deletes expired ones oldest first (at most 3)", async () => {
    const w = world(CONFIG, { owned: true });
    const expired = [5, 1, 4, 2, 3].map(
      (n) =>
        w.keys.add({
          name: `${w.prefix}2025010${n}T000000.000Z`,
          expireAt: iso(T0 - (10 - n) * DAY),
        }).record,
    );
    const usable = w.keys.add({ name: `${w.prefix}20251101T000000.000Z` }).record;
    const alreadyOff = w.keys.add({ name: `${w.prefix}20251102T000000.000Z`, state: 'disabled' });
    const hand = w.keys.add({ name: 'ci-pipeline', expireAt: iso(T0 - DAY) }).record;
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    // setSecret already disabled the usable one; make it usable again to see finishSecret do it.
    usable.state = 'enabled';
    w.keys.calls.length = 0;
    await runRotationStep(w.deps, 'finishSecret', request);
    const newName = w.secrets.value('AWSCURRENT').keyName!;
    expect(w.keys.calls.filter((c) => c.startsWith('deleteKey'))).toEqual(
      [1, 2, 3].map((n) => `deleteKey:${w.prefix}2025010${n}T000000.000Z`),
    );
    expect(w.keys.byName(`${w.prefix}20250104T000000.000Z`)).toBe(expired[2]);
    expect(w.keys.calls.filter((c) => c.endsWith(':disabled'))).toEqual([
      `updateKey:${usable.name}:disabled`,
    ]);
    expect(alreadyOff.record.state).toBe('disabled');
    expect(w.keys.byName('ci-pipeline')).toBe(hand);
    // The new key and the previous (current until now) key are never tidied away.
    expect(w.keys.byName(newName)?.state).toBe('enabled');
    expect(w.keys.byName(w.current.record.name)?.state).toBe('enabled');
  });

  it('an expired previous key is cut, never deleted as an "other" key', async () => {
    const w = world(CONFIG, { owned: true });
    w.current.record.expireAt = iso(T0 + 3_600_000);
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.clock.now = T0 + 2 * 3_600_000;
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(w.keys.byName(w.current.record.name)).toBeDefined();
  });

  it('an expired key already gone (404 on delete) does not stop the rotation; other errors do', async () => {
    const w = world(CONFIG, { owned: true });
    w.keys.add({ name: `${w.prefix}20250101T000000.000Z`, expireAt: iso(T0 - DAY) });
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.keys.failNext.set('deleteKey', [500]);
    await expect(runRotationStep(w.deps, 'finishSecret', request)).rejects.toMatchObject({
      status: 500,
    });
    expect(w.secrets.stagesOf('v0')).toEqual(['AWSCURRENT']);
    w.keys.failNext.set('deleteKey', [404]);
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(w.secrets.stagesOf('tok-1')).toEqual(['AWSCURRENT']);
  });
});

describe('rotateLocally (the CLI without the deployed function)', () => {
  it('refuses a secret not enabled for rotation, writing nothing', async () => {
    const w = world();
    w.secrets.rotationEnabled = false;
    await expect(rotateLocally(w.deps, w.secrets.name, () => 'tok-new')).rejects.toThrow(
      `Secret ${w.secrets.name} is not enabled for rotation`,
    );
    expect(w.secrets.writes).toEqual([]);
  });

  it('runs the four steps in order under a new token and returns it', async () => {
    const w = world();
    const seen: string[] = [];
    const token = await rotateLocally(
      w.deps,
      w.secrets.name,
      () => 'tok-new',
      (s) => seen.push(s),
    );
    expect(token).toBe('tok-new');
    expect(seen).toEqual([...ROTATION_STEPS]);
    expect(w.secrets.stagesOf('tok-new')).toEqual(['AWSCURRENT']);
    const current = w.secrets.value('AWSCURRENT');
    expect(current.keyName).toBe(`${w.prefix}20260101T000000.000Z`);
    expect(current.expireAt).toBe(iso(T0 + 30 * DAY));
  });

  it('resumes an unfinished rotation with its token (no second key)', async () => {
    const w = world();
    const request = placeholder(w, 'tok-stuck');
    await steps(w, request, 'setSecret');
    let fresh = 0;
    const token = await rotateLocally(w.deps, w.secrets.name, () => `tok-${++fresh}`);
    expect(token).toBe('tok-stuck');
    expect(fresh).toBe(0);
    expect(w.keys.keys).toHaveLength(2);
  });

  it('a version that is AWSCURRENT and AWSPENDING is not "unfinished": a new rotation starts', async () => {
    const w = world();
    w.secrets.versions.get('v0')!.stages.push('AWSPENDING');
    const token = await rotateLocally(w.deps, w.secrets.name, () => 'tok-new');
    expect(token).toBe('tok-new');
    expect(w.secrets.stagesOf('tok-new')).toEqual(['AWSCURRENT']);
  });
});

describe('what an operator can rely on around the steps', () => {
  const parsed = (lines: string[]) =>
    lines.map((l) => JSON.parse(l) as Record<string, unknown> & { level: string });

  it('every log line names the secret, the token and the step', async () => {
    const w = world();
    const log = withLog(w);
    const request = placeholder(w);
    for (const step of ROTATION_STEPS) {
      const from = log.length;
      await runRotationStep(w.deps, step, request);
      const lines = parsed(log.slice(from));
      expect(lines.length, step).toBeGreaterThan(0);
      for (const line of lines)
        expect(line, step).toMatchObject({ secretId: w.secrets.name, versionId: 'tok-1', step });
    }
    // A plain rotation warns about nothing.
    expect(parsed(log).filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  it('rotateLocally logs its own first write as createSecret, and works without a logger', async () => {
    const w = world();
    const log = withLog(w);
    await rotateLocally(w.deps, w.secrets.name, () => 'tok-new');
    expect(parsed(log)[0]).toMatchObject({
      secretId: w.secrets.name,
      versionId: 'tok-new',
      step: 'createSecret',
    });
    const quiet = world();
    const { logger: _omit, ...deps } = quiet.deps;
    await expect(rotateLocally(deps, quiet.secrets.name, () => 'tok-q')).resolves.toBe('tok-q');
  });

  it('every management client it opens is closed again, on failure too', async () => {
    const w = world();
    let open = 0;
    const connect = w.deps.connect;
    w.deps = {
      ...w.deps,
      connect: (credentials) => {
        const api = connect(credentials);
        open += 1;
        return { ...api, close: () => void (open -= 1) };
      },
    };
    const request = placeholder(w);
    await steps(w, request, 'finishSecret');
    expect(open).toBe(0);
    w.keys.failNext.set('listKeys', [500]);
    await expect(rotateLocally(w.deps, w.secrets.name, () => 'tok-2')).rejects.toMatchObject({
      status: 500,
    });
    expect(open).toBe(0);
  });

  it('roleAssignmentFor takes the record roles and refuses a record without any', () => {
    const base = { id: '5d5f2f0e-3c1e-4f43-9c3a-2b1f7f3b9a11', name: 'k', keySuffix: 'abcd' };
    expect(() => roleAssignmentFor('prod/key', { ...base, expireAt: null, roles: [] }, [])).toThrow(
      /prod\/key: the record of its key/,
    );
    expect(
      roleAssignmentFor('prod/key', { ...base, expireAt: null, roles: ['developer'] }, undefined),
    ).toEqual({ roles: ['developer'] });
  });
});

describe('keys without a record (deleted by hand)', () => {
  const adminWorld = () => {
    const config: RotationConfig = { ...CONFIG, adminSecretId: 'cloudops/admin' };
    const w = world(config, { owned: true });
    const admin = w.keys.add({ name: 'admin-key' });
    w.sm
      .add('cloudops/admin', 'arn:admin')
      .seed('a0', JSON.stringify(admin.secret), ['AWSCURRENT']);
    return w;
  };
  const drop = (w: World, name: string) =>
    w.keys.keys.splice(w.keys.keys.indexOf(w.keys.byName(name)!), 1);

  it('setSecret refuses to make a key whose roles no record can vouch for, and changes nothing', async () => {
    const w = adminWorld();
    const older = w.keys.add({ name: `${w.prefix}20251101T000000.000Z` }).record;
    drop(w, w.current.record.name);
    const request = placeholder(w);
    await expect(steps(w, request, 'setSecret')).rejects.toThrow(
      /cloudops\/management-key \(AWSCURRENT\): field keyId matches no single key record/,
    );
    expect(w.keys.calls.filter((c) => !c.startsWith('listKeys'))).toEqual([]);
    expect(older.state).toBe('enabled');
  });

  it('a finish retried after the move completes when the current key has no record', async () => {
    const w = adminWorld();
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.secrets.versions.get('tok-1')!.stages = ['AWSPENDING', 'AWSCURRENT'];
    w.secrets.versions.get('v0')!.stages = ['AWSPREVIOUS'];
    drop(w, w.secrets.value('AWSCURRENT').keyName!);
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(w.secrets.stagesOf('tok-1')).toEqual(['AWSCURRENT']);
    expect(w.current.record.expireAt).toBe(iso(T0 + DAY));
  });

  it('finishSecret tidies other keys when the previous key has no record', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    const stray = w.keys.add({ name: `${w.prefix}20251101T000000.000Z` }).record;
    w.keys.add({ name: 'ci-pipeline' });
    drop(w, 'seeded-by-hand');
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(stray.state).toBe('disabled');
    expect(w.secrets.stagesOf('tok-1')).toEqual(['AWSCURRENT']);
  });
});

describe('finishSecret never cuts or deletes a key in use', () => {
  it('the new key is not cut even if AWSPREVIOUS holds it (labels moved by hand)', async () => {
    const w = world();
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    w.secrets.seed('vBack', w.secrets.versions.get('tok-1')!.value, ['AWSPREVIOUS']);
    await runRotationStep(w.deps, 'finishSecret', request);
    const name = w.secrets.value('AWSCURRENT').keyName!;
    expect(w.keys.byName(name)?.expireAt).toBe(iso(T0 + 30 * DAY));
    expect(w.current.record.expireAt).toBe(iso(T0 + DAY));
  });

  it('only expired keys are deleted; a disabled or usable one is kept', async () => {
    const w = world(CONFIG, { owned: true });
    const expired = w.keys.add({ name: `${w.prefix}20250101T000000.000Z`, expireAt: iso(T0 - 1) });
    const off = w.keys.add({ name: `${w.prefix}20251001T000000.000Z`, state: 'disabled' }).record;
    const request = placeholder(w);
    await steps(w, request, 'testSecret');
    const stray = w.keys.add({ name: `${w.prefix}20251101T000000.000Z` }).record;
    w.keys.calls.length = 0;
    await runRotationStep(w.deps, 'finishSecret', request);
    expect(w.keys.calls.filter((c) => c.startsWith('deleteKey'))).toEqual([
      `deleteKey:${expired.record.name}`,
    ]);
    expect(w.keys.byName(off.name)).toBe(off);
    expect(w.keys.byName(stray.name)).toBe(stray);
    expect(stray.state).toBe('disabled');
  });
});

describe('every refusal names the secret (RotationError.secretId)', () => {
  it('expired AWSPENDING, no value, no key, rotation disabled, no roles', async () => {
    const named = { name: 'RotationError', secretId: 'cloudops/management-key' };
    const expired = world();
    const r1 = placeholder(expired);
    await runRotationStep(expired.deps, 'createSecret', r1);
    expired.clock.now = T0 + 30 * DAY;
    await expect(runRotationStep(expired.deps, 'setSecret', r1)).rejects.toMatchObject(named);

    const empty = world();
    await expect(
      runRotationStep(empty.deps, 'setSecret', placeholder(empty)),
    ).rejects.toMatchObject(named);

    const noKey = world();
    const r3 = placeholder(noKey);
    await runRotationStep(noKey.deps, 'createSecret', r3);
    await expect(
      runRotationStep(
        { ...noKey.deps, config: { ...CONFIG, adminSecretId: noKey.secrets.name } },
        'finishSecret',
        r3,
      ),
    ).rejects.toMatchObject(named);

    const off = world();
    off.secrets.rotationEnabled = false;
    await expect(rotateLocally(off.deps, off.secrets.name, () => 't')).rejects.toMatchObject(named);

    const bare = world();
    const norecord = { ...bare.current.record, roles: undefined, assignedRoles: undefined };
    expect(() => roleAssignmentFor('cloudops/management-key', norecord, undefined)).toThrow(
      expect.objectContaining(named) as Error,
    );
  });
});
