/**
 * `cloudops keys` refusing before it writes: usage errors (64) name the flag; adopt checks the
 * key and the secret before touching it; revoke refuses another deployment's key.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import { createManagementClient } from '../../lib/api';
import { staticCredentials } from '../../lib/credentials';
import { keyNameFor, ownedNamePrefix } from '../../lib/keys';
import { managementKeySecret } from '../../lib/schemas';
import { runCapture } from '../support/cli';
import { startRotationSandbox, type RotationSandbox } from './rotation-harness';

let rs: RotationSandbox;
let dir: string;
beforeAll(async () => {
  rs = await startRotationSandbox(undefined, 'current');
  dir = mkdtempSync(join(tmpdir(), 'keys-cli-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await rs.close();
});

const env = () => ({ ...sandboxEnv(rs.sb.info), CLOUDOPS_LOG_LEVEL: 'silent' });
const run = (argv: string[]) => runCapture(['keys', ...argv], { env: env() });

describe('usage errors exit 64 and name the flag', () => {
  it.each([
    [['audit', '--fail-on', 'extreme'], '--fail-on expects low, medium, high, got "extreme"'],
    [['audit', '--format', 'html'], '--format expects text, markdown or json, got "html"'],
    [['audit', '--unused-days', '0'], '--unused-days expects a whole number of days (1 or more)'],
    [['revoke'], 'give the record id of the key to revoke'],
    [['revoke', 'some-id', '--grace', 'soon'], '--grace expects a duration such as 90d'],
    [['adopt', '--secret-id', 'x'], 'give --key-id and --secret-id'],
    [['rotate', '--wait', 'long'], '--wait expects a duration such as 90d'],
    [['inspect'], 'unknown subcommand "inspect"'],
  ])('keys %j', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('keys list prints every key with who manages it, riskiest first', async () => {
    const result = await run(['list']);
    expect(result.code).toBe(0);
    const [header, first] = result.stdout.split('\n');
    expect(header).toMatch(
      /^RISK +NAME +SUFFIX +ROLES +STATE +CREATED +LAST USED +EXPIRES +IPS +MANAGED BY$/,
    );
    expect(first).toMatch(/^high +sandbox-admin /);
  });
});

describe('keys adopt checks everything before the first write', () => {
  const secretFile = (text: string) => {
    const file = join(dir, `secret-${Math.random().toString(36).slice(2)}`);
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  };

  it('refuses a key the service does not accept, leaving the secret as it was', async () => {
    await rs.sm.send(new CreateSecretCommand({ Name: 'adopt/untouched', SecretString: '{"v":1}' }));
    const result = await run([
      'adopt',
      '--key-id',
      'NOSUCHKEYID000000000',
      '--secret-id',
      'adopt/untouched',
      '--key-secret-file',
      secretFile('not-the-secret-of-any-key-0123456789'),
      '--rotation-function',
      'arn:aws:lambda:us-east-1:000000000000:function:cloudops-rotate-key',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'KeyCommandError: the service refuses key …0000 (401): check the key ID and its secret',
    );
    const value = await rs.sm.send(new GetSecretValueCommand({ SecretId: 'adopt/untouched' }));
    expect(value.SecretString).toBe('{"v":1}');
  });

  it('refuses a secret with no rotation function (none given) before writing it', async () => {
    const seed = await rs.read('AWSCURRENT');
    await rs.sm.send(
      new CreateSecretCommand({ Name: 'adopt/no-rotation', SecretString: '{"v":1}' }),
    );
    const result = await run([
      'adopt',
      '--key-id',
      seed.keyId,
      '--secret-id',
      'adopt/no-rotation',
      '--key-secret-file',
      secretFile(seed.keySecret),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'adopt/no-rotation has no rotation function: give --rotation-function',
    );
    const described = await rs.sm.send(
      new DescribeSecretCommand({ SecretId: 'adopt/no-rotation' }),
    );
    expect([described.Tags, Object.keys(described.VersionIdsToStages ?? {}).length]).toEqual([
      undefined,
      1,
    ]);
    expect(result.stderr).not.toContain(seed.keySecret);
  });

  it('creates a named secret, tags it and turns rotation on with the function given', async () => {
    const seed = await rs.read('AWSCURRENT');
    const result = await run([
      'adopt',
      '--key-id',
      seed.keyId,
      '--secret-id',
      'adopt/new',
      '--key-secret-file',
      secretFile(`${seed.keySecret}\n`),
      '--rotation-function',
      'arn:aws:lambda:us-east-1:000000000000:function:cloudops-rotate-key',
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({
      keyRecordId: rs.sb.info.keyRecordId,
      rotation: 'turned-on',
    });
    const described = await rs.sm.send(new DescribeSecretCommand({ SecretId: 'adopt/new' }));
    expect(described.RotationEnabled).toBe(true);
    expect(described.Tags).toContainEqual({
      Key: 'cloudops:key-record-id',
      Value: rs.sb.info.keyRecordId,
    });
    const stored = managementKeySecret.parse(
      JSON.parse(
        (await rs.sm.send(new GetSecretValueCommand({ SecretId: 'adopt/new' }))).SecretString!,
      ),
    );
    expect(stored).toMatchObject({ keyId: seed.keyId, keyRecordId: rs.sb.info.keyRecordId });
  });
});

describe('keys revoke', () => {
  it("refuses a key another deployment's rotator made unless --force", async () => {
    const seed = await rs.read('AWSCURRENT');
    const api = createManagementClient({
      baseUrl: rs.sb.info.apiUrl,
      credentials: staticCredentials('seed', seed, managementKeySecret),
      rateLimit: false,
    });
    const foreignName = keyNameFor(
      ownedNamePrefix('cloudops-rotated-', 'arn:aws:secretsmanager:eu-west-1:2:secret:x-AbCdEf'),
      rs.sb.clock.now(),
    );
    const made = await api.createKey({ name: foreignName, roles: ['developer'] });
    api.close();
    const refused = await run(['revoke', made.key.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is rotated by another deployment .* give --force/);
    expect(rs.sb.store.key(made.key.id)?.state).toBe('enabled');
    const forced = await run(['revoke', made.key.id, '--force', '--grace', '0']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('deleted (no grace)');
    expect(rs.sb.store.key(made.key.id)).toBeUndefined();
  });
});
