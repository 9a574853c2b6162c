/** `cloudops keys rotate` against the sandbox (the key-expiry sentinel: key-sentinel.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysCommand } from '../../cli/commands/keys';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
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
