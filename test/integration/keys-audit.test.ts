/**
 * Keys you can account for, on the sandbox, through the CLI and the deployed key sentinel: the
 * audit gates on the never-expiring admin key and the unused key; after `keys adopt` + one
 * rotation + `keys revoke` it passes. The sentinel tells each of those findings once, and once
 * more when it is resolved.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import { createSentinelHandler } from '../../functions/rotate-key/sentinel';
import type { KeyNotice } from '../../lib/watch/subjects/key';
import { runCapture } from '../support/cli';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import { mockTopic, TOPIC_ARN } from '../support/sns-topic';
import { idleKey, startRotationSandbox, type RotationSandbox } from './rotation-harness';

let rs: RotationSandbox;
let dir: string;
let dynamo: LocalDynamo;
const topic = mockTopic();
beforeAll(async () => {
  topic.reset();
  rs = await startRotationSandbox(undefined, 'current');
  dynamo = await startLocalDynamo();
  dir = mkdtempSync(join(tmpdir(), 'keys-audit-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  topic.restore();
  await dynamo.close();
  await rs.close();
});

/** The deployed sentinel as the stack wires it (its own key: the secret the test adopts into). */
function sentinel() {
  const handler = createSentinelHandler({
    env: {
      CLOUDOPS_API_URL: rs.sb.info.apiUrl,
      CLOUDOPS_KEY_SENTINEL_SECRET_IDS: rs.secretId,
      CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: rs.secretId,
      CLOUDOPS_LOG_LEVEL: 'silent',
      // The sandbox's own limit is lifted (test harness); the client's would only slow the test.
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
      CLOUDOPS_WATCHDOG_TABLE: dynamo.tableName,
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: TOPIC_ARN,
    },
    secretsManager: rs.sm,
    notify: { sns: topic.client() },
    dynamo: dynamo.client,
    now: () => rs.sb.clock.now(),
  });
  return async () => {
    await handler({}, {} as Context);
    return topic.drain<KeyNotice>();
  };
}
const told = (notices: KeyNotice[], kind: KeyNotice['kind'], keyName: string, check: string) =>
  notices.filter((n) => n.kind === kind && n.keyName === keyName && n.check === check);

/** The operator's settings: the sandbox's seed admin key, as a person would have it at first. */
const env = () => ({
  ...sandboxEnv(rs.sb.info),
  CLOUDOPS_LOG_LEVEL: 'silent',
});

describe('cloudops keys audit: from findings to a clean bill', () => {
  it('gates on the never-expiring admin key and the unused key, and passes once they are dealt with', async () => {
    const seed = await rs.read('AWSCURRENT');
    const unusedId = await idleKey(rs, 'ci-reporting', 120);

    const runSentinel = sentinel();
    const found = await runSentinel();
    expect(told(found, 'finding', 'sandbox-admin', 'never-expires')).toMatchObject([
      { level: 'high', severity: 'critical' },
    ]);
    expect(told(found, 'finding', 'ci-reporting', 'unused')).toMatchObject([
      { level: 'medium', severity: 'warning' },
    ]);
    const dedupKeys = found.map((n) => n.dedupKey);
    expect(new Set(dedupKeys).size).toBe(dedupKeys.length);
    expect(await runSentinel()).toEqual([]);

    const before = await runCapture(['keys', 'audit', '--fail-on', 'high'], { env: env() });
    expect(before.stderr).toBe('');
    expect(before.code).toBe(2);
    expect(before.stdout).toMatch(
      new RegExp(
        `HIGH +key sandbox-admin \\(…${seed.keyId.slice(-4)}\\) never expires and holds the admin role\\n +what to do: bring it under rotation: cloudops keys adopt`,
      ),
    );
    expect(before.stdout).toMatch(
      new RegExp(
        `MEDIUM +key ci-reporting \\(…\\w{4}\\) has never been used since it was made \\S+ \\(120 days ago\\)\\n +what to do: revoke it: cloudops keys revoke ${unusedId}`,
      ),
    );
    // Who made the admin key, from the organization's activities.
    expect(before.stdout).toMatch(
      /key sandbox-admin \(…\w{4}\) was made outside rotation by user email: owner@example\.com at \S+ from 203\.0\.113\.7/,
    );

    const secretFile = join(dir, 'key-secret');
    writeFileSync(secretFile, `${seed.keySecret}\n`, { mode: 0o600 });
    const adopt = await runCapture(
      [
        'keys',
        'adopt',
        '--key-id',
        seed.keyId,
        '--secret-id',
        rs.secretId,
        '--key-secret-file',
        secretFile,
      ],
      { env: env() },
    );
    expect(adopt.stderr).toBe('');
    expect(adopt.code).toBe(0);
    expect(adopt.stdout).toContain(`adopted key …${seed.keyId.slice(-4)}`);

    const rotate = await runCapture(['keys', 'rotate', '--secret-id', rs.secretId], {
      env: { ...env(), CLOUDOPS_KEY_LIFETIME: '30d', CLOUDOPS_KEY_GRACE_PERIOD: '1d' },
    });
    expect(rotate.stderr).toBe('');
    expect(rotate.code).toBe(0);

    // From now on the operator works with the rotated key, through the secret.
    const rotated = { ...env(), CLOUDOPS_KEY_SECRET_ID: rs.secretId };
    const revoke = await runCapture(['keys', 'revoke', unusedId], { env: rotated });
    expect(revoke.stderr).toBe('');
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toMatch(/key ci-reporting \(…\w{4}\) disabled; it expires \S+Z/);

    const after = await runCapture(['keys', 'audit', '--fail-on', 'high'], { env: rotated });
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(after.stdout).not.toMatch(/^HIGH/m);
    expect(after.stdout).toMatch(/LOW +key ci-reporting \(…\w{4}\) is disabled but not deleted/);

    const resolved = await runSentinel();
    expect(told(resolved, 'resolved', 'sandbox-admin', 'never-expires')).toHaveLength(1);
    expect(told(resolved, 'resolved', 'ci-reporting', 'unused')).toHaveLength(1);
    expect(resolved.filter((n) => n.kind === 'resolved').every((n) => n.resolves)).toBe(true);
    expect(await runSentinel()).toEqual([]);

    const list = await runCapture(['keys', 'list', '--json'], { env: rotated });
    expect(list.code).toBe(0);
    const keys = (JSON.parse(list.stdout) as { keys: { name: string; managedBy: string }[] }).keys;
    const secretName = 'cloudops/sandbox/management-key';
    expect(keys.find((k) => k.name === 'sandbox-admin')?.managedBy).toBe(
      `${secretName} (retiring)`,
    );
    expect(keys.find((k) => k.name.startsWith('cloudops-rotated-'))?.managedBy).toBe(
      `${secretName} (current)`,
    );
    for (const run of [before, adopt, rotate, revoke, after, list])
      expect(run.stdout).not.toContain(seed.keySecret);
  });
});
