/**
 * A way back from an expired current key, and `keys rotate` reporting only what it can know:
 * - without an admin secret the rotation stops naming the secret and what to do, and a key made
 *   in the console, adopted, brings rotation back;
 * - with an admin secret the replacement is made with the admin key;
 * - the summary never needs a role the rotated key lacks;
 * - `--via secrets-manager` follows the asynchronous rotation to its end, or fails at its deadline.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import { createManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import type { RotationConfig } from '../../lib/keys';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import { runCapture } from '../support/cli';
import { closeAfterEach } from '../support/close-after-each';
import {
  adminAndDeveloperSecrets,
  DAY,
  startRotationSandbox,
  TEST_CONFIG,
  type RotationSandbox,
} from './rotation-harness';

const LAMBDA = 'arn:aws:lambda:us-east-1:000000000000:function:cloudops-rotate-key';
const open = closeAfterEach<RotationSandbox>();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'keys-way-back-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sandbox(timing: 'sync' | 'async' = 'sync'): Promise<RotationSandbox> {
  const rs = await startRotationSandbox(TEST_CONFIG, 'current', timing);
  open.push(rs);
  return rs;
}

const env = (rs: RotationSandbox, extra: Record<string, string> = {}) => ({
  ...sandboxEnv(rs.sb.info),
  CLOUDOPS_KEY_LIFETIME: '30d',
  CLOUDOPS_KEY_GRACE_PERIOD: '1d',
  CLOUDOPS_LOG_LEVEL: 'silent',
  ...extra,
});

/** A key made as a person makes one in the console (shown once), with `as`'s rights. */
async function consoleKey(
  rs: RotationSandbox,
  as: ManagementKeySecret,
  name: string,
): Promise<ManagementKeySecret> {
  const api = createManagementClient({
    baseUrl: rs.sb.info.apiUrl,
    credentials: staticCredentials(name, as, managementKeySecret),
    rateLimit: false,
  });
  const made = await api.createKey({ name, assignedRoleIds: [rs.sb.info.roleIds!.Admin] });
  api.close();
  return { ...as, keyId: made.keyId!, keySecret: made.keySecret! };
}

describe('a way back from an expired current key', () => {
  it('without an admin secret the rotation names the secret and the way out; adopting a console key brings rotation back', async () => {
    const rs = await sandbox();
    // The person's own console login, which outlives every key of the secret.
    const person = await consoleKey(rs, { ...rs.sb.info, expireAt: null }, 'person');
    await rs.rotate();
    rs.sb.clock.advance(31 * DAY); // rotation was off for too long: the current key expired
    const stuck = await runCapture(['keys', 'rotate', '--secret-id', rs.secretId], {
      env: env(rs),
    });
    expect(stuck.code).toBe(1);
    expect(stuck.stderr).toContain(
      `${rs.secretId}: the service refuses its current key (…${(await rs.read('AWSCURRENT')).keyId.slice(-4)}: expired, disabled or deleted) and no admin secret is configured to make its replacement with. Make a key with the same roles in the console, then run \`cloudops keys adopt --key-id <its key ID> --secret-id ${rs.secretId}\``,
    );

    const fresh = await consoleKey(rs, person, 'made-in-console');
    const file = join(dir, 'console-key');
    writeFileSync(file, fresh.keySecret, { mode: 0o600 });
    const adopt = await runCapture(
      [
        'keys',
        'adopt',
        '--key-id',
        fresh.keyId,
        '--secret-id',
        rs.secretId,
        '--key-secret-file',
        file,
      ],
      { env: env(rs, { CLOUDOPS_KEY_ID: person.keyId, CLOUDOPS_KEY_SECRET: person.keySecret }) },
    );
    expect(adopt.stderr).toBe('');
    expect(adopt.code).toBe(0);
    expect(adopt.stdout).toMatch(/cleared the unfinished rotation \S+ \(AWSPENDING\)/);
    expect((await rs.read('AWSCURRENT')).keyId).toBe(fresh.keyId);

    // The deployed function rotates it on the sandbox's clock (31 days on from the CLI's).
    await rs.rotate();
    const next = await rs.read('AWSCURRENT');
    expect(next.keyId).not.toBe(fresh.keyId);
    expect(await rs.authenticates(next)).toBe(true);
    // The adopted key works through its grace only.
    rs.sb.clock.advance(2 * DAY);
    expect(await rs.authenticates(fresh)).toBe(false);
  });

  it('with an admin secret the replacement is made with the admin key', async () => {
    const rs = await sandbox();
    await adminAndDeveloperSecrets(rs);
    (rs.deps as { config: RotationConfig }).config = { ...TEST_CONFIG, adminSecretId: 'admin-key' };
    const rotateDev = () =>
      rs.sm.send(new RotateSecretCommand({ SecretId: 'dev-key', RotationLambdaARN: LAMBDA }));
    await rotateDev();
    const expired = await readDev(rs);
    rs.sb.clock.advance(31 * DAY);
    expect(await rs.authenticates(expired)).toBe(false);
    await rotateDev();
    const replacement = await readDev(rs);
    expect(replacement.keyId).not.toBe(expired.keyId);
    expect(await rs.authenticates(replacement)).toBe(true);
  });
});

async function readDev(rs: RotationSandbox): Promise<ManagementKeySecret> {
  const out = await rs.sm.send(new GetSecretValueCommand({ SecretId: 'dev-key' }));
  return managementKeySecret.parse(JSON.parse(out.SecretString!));
}

describe('keys rotate reports with what it may call', () => {
  it('with an admin secret, a developer key rotates and its summary exits 0 (no list call with the new key)', async () => {
    const rs = await sandbox();
    const { dev } = await adminAndDeveloperSecrets(rs);
    // Rotation on (Secrets Manager only tests the function: no new key yet).
    await rs.sm.send(
      new RotateSecretCommand({
        SecretId: 'dev-key',
        RotationLambdaARN: LAMBDA,
        RotateImmediately: false,
      }),
    );
    const run = await runCapture(['keys', 'rotate', '--secret-id', 'dev-key', '--json'], {
      env: env(rs, { CLOUDOPS_ROTATION_ADMIN_SECRET_ID: 'admin-key' }),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as {
      current: { keySuffix: string; expireAt: string };
      previous: { keySuffix: string; expireAt: string };
      expirySource: string;
    };
    expect(result.previous.keySuffix).toBe(dev.keyId.slice(-4));
    expect(result.expirySource).toBe('key-record');
    // The previous key's expiry is the grace the rotation cut, as the service has it.
    expect(Math.abs(Date.parse(result.previous.expireAt) - (rs.sb.clock.now() + DAY))).toBeLessThan(
      5_000,
    );
  });
});

describe('keys rotate --via secrets-manager follows the rotation (RotateSecret answers first, as in AWS)', () => {
  it('waits until the new version is AWSCURRENT and reports the new key', async () => {
    const rs = await sandbox('async');
    const before = await rs.read('AWSCURRENT');
    const run = await runCapture(
      ['keys', 'rotate', '--via', 'secrets-manager', '--secret-id', rs.secretId],
      { env: env(rs) },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const after = await rs.read('AWSCURRENT');
    expect(after.keyId).not.toBe(before.keyId);
    expect(run.stdout).toContain('following the rotation (up to 5m)');
    expect(run.stdout).toContain(`new key      …${after.keyId.slice(-4)}`);
    expect(run.stdout).toContain(`previous key …${before.keyId.slice(-4)}`);
  });

  it('a rotation that fails is a non-zero exit at the deadline, naming the version and where to look', async () => {
    const rs = await sandbox('async');
    const first = await runCapture(['keys', 'rotate', '--secret-id', rs.secretId], {
      env: env(rs),
    });
    expect(first.code).toBe(0);
    rs.sb.clock.advance(31 * DAY); // the current key expires: its rotation fails (no admin secret)
    const started = Date.now();
    const run = await runCapture(
      ['keys', 'rotate', '--via', 'secrets-manager', '--wait', '2s', '--secret-id', rs.secretId],
      { env: env(rs) },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `rotation of ${rs.secretId.replace(/[/+]/g, '\\$&')} did not finish within 2s: version \\S+ holds AWSPENDING, not AWSCURRENT\\. The rotation function's logs say why`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    // What is left is what the next RotateSecret meets: named, with the way on.
    const again = await runCapture(
      ['keys', 'rotate', '--via', 'secrets-manager', '--secret-id', rs.secretId],
      { env: env(rs) },
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /a rotation of this secret is still running, or failed and left its AWSPENDING version: --via local resumes it/,
    );
  });
});
