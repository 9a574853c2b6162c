/**
 * An unseeded key secret (the deploy-time placeholder) does one thing wherever it is read:
 * nothing, said once in an info line. That includes the rotation its schedule starts anyway:
 * no key is made, no error is raised (no alarm), no label is left behind, and the first
 * rotation after seeding runs as usual.
 */
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it } from 'vitest';
import { NOT_CONFIGURED_TEMPLATE } from '../../lib/config';
import { startRotationSandbox, type RotationSandbox } from './rotation-harness';

let open: RotationSandbox[] = [];
afterEach(async () => {
  await Promise.all(open.map((rs) => rs.close()));
  open = [];
});

describe('a rotation of a secret that was never seeded', () => {
  it('makes nothing, fails nothing, leaves no AWSPENDING behind; after seeding it rotates', async () => {
    const rs = await startRotationSandbox();
    open.push(rs);
    const seeded = await rs.read('AWSCURRENT');
    const placeholder = {
      ...(JSON.parse(NOT_CONFIGURED_TEMPLATE) as object),
      placeholder: 'Rnd0mPlaceh0lder',
    };
    await rs.sm.send(
      new PutSecretValueCommand({
        SecretId: rs.secretId,
        SecretString: JSON.stringify(placeholder),
      }),
    );
    const keys = rs.sb.store.state.keys.length;
    rs.sb.requestLog.clear();

    await rs.rotate();
    expect(rs.sb.requestLog.entries().filter((e) => e.surface === 'management')).toEqual([]);
    expect(rs.sb.store.state.keys).toHaveLength(keys);
    const stages = Object.values(await rs.stages());
    expect(stages.filter((s) => s.includes('AWSPENDING'))).toEqual([]);
    expect(stages.filter((s) => s.includes('AWSCURRENT'))).toHaveLength(1);

    // The deployer seeds it; the next rotation (no "previous rotation isn't complete") runs.
    await rs.sm.send(
      new PutSecretValueCommand({ SecretId: rs.secretId, SecretString: JSON.stringify(seeded) }),
    );
    await rs.rotate();
    const rotated = await rs.read('AWSCURRENT');
    expect(rotated.keyId).not.toBe(seeded.keyId);
    expect(await rs.authenticates(rotated)).toBe(true);
  });
});
