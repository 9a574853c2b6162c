/** `cloudops keys rotate` and the key-expiry sentinel against the sandbox. */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysCommand } from '../../cli/commands/keys';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
import { createSentinelHandler } from '../../functions/rotate-key/sentinel';
import { snsKeyExpiryNotifier, type KeyExpiryNotice } from '../../lib/keys';
import { DAY, startRotationSandbox, type RotationSandbox } from './rotation-harness';

let rs: RotationSandbox;
beforeAll(async () => {
  rs = await startRotationSandbox();
});
afterAll(() => rs.close());

function io(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIO = {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    env,
    isTTY: false,
  };
  return { cli, out, err };
}

const envFor = (rs: RotationSandbox) => ({
  ...sandboxEnv(rs.sb.info),
  CLOUDOPS_KEY_SECRET_ID: rs.secretId,
  CLOUDOPS_KEY_LIFETIME: '30d',
  CLOUDOPS_KEY_GRACE_PERIOD: '1d',
  CLOUDOPS_LOG_LEVEL: 'silent',
});

describe('cloudops keys rotate', () => {
  it('--via local runs the four steps here and prints the expiry dates', async () => {
    const before = await rs.read('AWSCURRENT');
    const { cli, out } = io(envFor(rs));
    const code = await keysCommand.run(['rotate'], cli, new AbortController().signal);
    expect(code).toBe(0);
    const after = await rs.read('AWSCURRENT');
    expect(after.keyId).not.toBe(before.keyId);
    expect(await rs.authenticates(after)).toBe(true);
    expect(await rs.authenticates(before)).toBe(true);
    const text = out.join('\n');
    expect(text).toMatch(/createSecret[\s\S]*setSecret[\s\S]*testSecret[\s\S]*finishSecret/);
    expect(text).toContain(`new key      …${after.keyId.slice(-4)} expires ${after.expireAt}`);
    expect(text).toMatch(
      new RegExp(`previous key …${before.keyId.slice(-4)} expires \\S+Z \\(grace\\)`),
    );
    expect(text).not.toContain(after.keySecret);
  });

  it('--via secrets-manager calls RotateSecret (the sandbox runs the handler) and prints JSON', async () => {
    const before = await rs.read('AWSCURRENT');
    const { cli, out } = io(envFor(rs));
    const code = await keysCommand.run(
      ['rotate', '--via', 'secrets-manager', '--json', '--secret-id', rs.secretId],
      cli,
      new AbortController().signal,
    );
    expect(code).toBe(0);
    const result = JSON.parse(out.at(-1)!) as {
      current: { keySuffix: string; expireAt: string };
      previous: { keySuffix: string; expireAt: string };
    };
    const after = await rs.read('AWSCURRENT');
    expect(result.current.keySuffix).toBe(after.keyId.slice(-4));
    expect(result.previous.keySuffix).toBe(before.keyId.slice(-4));
    expect(Date.parse(result.previous.expireAt)).toBeLessThanOrEqual(rs.sb.clock.now() + DAY);
  });

  it('a bad flag is a usage error', async () => {
    const { cli } = io(envFor(rs));
    await expect(
      keysCommand.run(['rotate', '--via', 'pigeon'], cli, new AbortController().signal),
    ).rejects.toThrow(/--via expects local or secrets-manager/);
    await expect(keysCommand.run(['spin'], cli, new AbortController().signal)).rejects.toThrow(
      /expected list, audit, adopt, revoke or rotate/,
    );
  });
});

describe('key expiry sentinel', () => {
  it('publishes its warning through the SNS publisher of lib/notify (subject, JSON, severity attribute)', async () => {
    const sns = mockClient(SNSClient);
    sns.on(PublishCommand).resolves({ MessageId: 'm1' });
    try {
      const sentinel = createSentinelHandler({
        secrets: rs.sm,
        secretId: rs.secretId,
        warnDays: 365, // anything short of a year left counts as stuck here
        now: () => rs.sb.clock.now(),
        notifier: snsKeyExpiryNotifier(
          new SNSClient({ region: 'us-east-1' }),
          'arn:aws:sns:us-east-1:1:t',
        ),
      });
      expect((await sentinel({}, {} as Context)).status).toBe('expiring');
      const [call] = sns.commandCalls(PublishCommand);
      const input = call.args[0].input;
      expect(input).toMatchObject({
        TopicArn: 'arn:aws:sns:us-east-1:1:t',
        Subject: `[WARNING] API key expiring: ${rs.secretId.split(':secret:')[1]}`,
        MessageAttributes: {
          severity: { DataType: 'String', StringValue: 'warning' },
          kind: { DataType: 'String', StringValue: 'key-expiry' },
          status: { DataType: 'String', StringValue: 'expiring' },
        },
      });
      expect(JSON.parse(input.Message!)).toMatchObject({
        secretId: rs.secretId,
        status: 'expiring',
      });
      expect(input.Message).not.toContain((await rs.read('AWSCURRENT')).keySecret);
    } finally {
      sns.restore();
    }
  });

  it('is quiet while the key is fresh and warns once it is within the warning window', async () => {
    const notices: KeyExpiryNotice[] = [];
    const sentinel = createSentinelHandler({
      secrets: rs.sm,
      secretId: rs.secretId,
      warnDays: 7,
      now: () => rs.sb.clock.now(),
      notifier: { send: (n) => Promise.resolve(void notices.push(n)) },
    });
    await rs.rotate();
    const fresh = await sentinel({}, {} as Context);
    expect(fresh.status).toBe('ok');
    expect(notices).toHaveLength(0);

    rs.sb.clock.advance(24 * DAY); // rotation did not run: 6 days left
    const stuck = await sentinel({}, {} as Context);
    expect(stuck.status).toBe('expiring');
    expect(notices).toHaveLength(1);
    expect(notices[0].message).toMatch(/rotation is stuck/);
    const current = await rs.read('AWSCURRENT');
    expect(JSON.stringify(notices)).not.toContain(current.keySecret);

    rs.sb.clock.advance(7 * DAY);
    expect((await sentinel({}, {} as Context)).status).toBe('expired');
  });

  it('warns about a key that never expires (rotation never ran)', async () => {
    const fresh = await startRotationSandbox();
    try {
      const notices: KeyExpiryNotice[] = [];
      const sentinel = createSentinelHandler({
        secrets: fresh.sm,
        secretId: fresh.secretId,
        warnDays: 7,
        now: () => fresh.sb.clock.now(),
        notifier: { send: (n) => Promise.resolve(void notices.push(n)) },
      });
      expect((await sentinel({}, {} as Context)).status).toBe('no-expiry');
      expect(notices.map((n) => n.status)).toEqual(['no-expiry']);
    } finally {
      await fresh.close();
    }
  });
});
