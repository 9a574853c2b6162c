/** Key rotation: RotateSecret drives the rotation function; old key works during grace, then 401. */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { DEFAULT_ROTATION_CONFIG, keyAuthenticates } from '../../lib/keys';
import { managementKeySecret, type ManagementKeySecret } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox';
import type { RotationInvoker } from '../../sandbox/secrets-manager';
import { sandboxRotationInvoker, sandboxSecretsClient } from '../sandbox-rotation';
import { expectThat, runCommand, say, type DemoContext, type DemoStep } from './context';
import { UNIT_MS } from '../../lib/duration';

const DEMO_ROTATION = {
  ...DEFAULT_ROTATION_CONFIG,
  lifetimeMs: 30 * UNIT_MS.d,
  gracePeriodMs: UNIT_MS.d,
};

/** The sandbox's RotateSecret runs the real rotation function with the demo's dates. */
export function demoRotationInvoker(sandbox: Sandbox): RotationInvoker {
  return sandboxRotationInvoker(sandbox, DEMO_ROTATION);
}

async function read(ctx: DemoContext, stage: string): Promise<ManagementKeySecret> {
  const client = sandboxSecretsClient(ctx.sandbox);
  try {
    const out = await client.send(
      new GetSecretValueCommand({ SecretId: ctx.sandbox.info.keySecretId, VersionStage: stage }),
    );
    return managementKeySecret.parse(JSON.parse(out.SecretString ?? 'null'));
  } finally {
    client.destroy();
  }
}

const rotateStep: DemoStep = {
  title:
    'Key rotation: RotateSecret runs the rotation function; the old key lives only through its grace',
  async run(ctx) {
    const before = await read(ctx, 'AWSCURRENT');
    const code = await runCommand(ctx, [
      'keys',
      'rotate',
      '--secret-id',
      ctx.sandbox.info.keySecretId,
      '--via',
      'secrets-manager',
    ]);
    expectThat(code === 0, 'the rotation succeeded');
    const current = await read(ctx, 'AWSCURRENT');
    const previous = await read(ctx, 'AWSPREVIOUS');
    expectThat(
      current.keyId !== before.keyId && previous.keyId === before.keyId,
      'AWSCURRENT moved',
    );
    expectThat(await keyAuthenticates(ctx.sandbox.info.apiUrl, current), 'the new key works');
    expectThat(
      await keyAuthenticates(ctx.sandbox.info.apiUrl, previous),
      'the old key works during its grace',
    );
    say.ok(
      ctx.io,
      `new key …${current.keyId.slice(-4)} works; old key …${previous.keyId.slice(-4)} still works (grace)`,
    );
    ctx.sandbox.clock.advance(DEMO_ROTATION.gracePeriodMs + 60_000);
    expectThat(
      !(await keyAuthenticates(ctx.sandbox.info.apiUrl, previous)),
      'the old key is refused after its grace',
    );
    expectThat(await keyAuthenticates(ctx.sandbox.info.apiUrl, current), 'the new key still works');
    say.ok(
      ctx.io,
      `a day later (sandbox clock): old key → 401, new key → 200; the new key expires ${current.expireAt ?? 'never'}`,
    );
  },
};

export const rotationSteps: DemoStep[] = [rotateStep];
