import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  InvalidRequestException,
  PutSecretValueCommand,
  ResourceNotFoundException,
  RotateSecretCommand,
  UpdateSecretVersionStageCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RotationEvent } from '../../sandbox/secrets-manager';
import {
  sdkClient,
  startSecretsManagerServer,
  token,
  type SecretsManagerServer,
} from '../support/secrets-manager';

const LAMBDA = 'arn:aws:lambda:us-east-1:000000000000:function:rotate';
let server: SecretsManagerServer;
let client: SecretsManagerClient;
let clock = Date.UTC(2025, 0, 1);

beforeEach(async () => {
  server = await startSecretsManagerServer({ now: () => clock });
  client = sdkClient(server.url);
  server.emulator.createSecret({ name: 'rotated', secretString: 'old-value' });
});

afterEach(async () => {
  client.destroy();
  await server.close();
});

/** A tiny rotation function in the shape of AWS's template, talking to the emulator over HTTP. */
function tinyRotation(
  seen: Array<{ event: RotationEvent; stages: Record<string, string[]>; pendingReadable: boolean }>,
) {
  return async (_arn: string, event: RotationEvent) => {
    const { SecretId, ClientRequestToken: tok, Step } = event;
    const metadata = await client.send(new DescribeSecretCommand({ SecretId }));
    const stages = metadata.VersionIdsToStages ?? {};
    const pendingReadable = await client
      .send(new GetSecretValueCommand({ SecretId, VersionId: tok, VersionStage: 'AWSPENDING' }))
      .then(
        () => true,
        (error: unknown) => {
          if (error instanceof ResourceNotFoundException) return false;
          throw error;
        },
      );
    seen.push({ event, stages, pendingReadable });
    if (!metadata.RotationEnabled || !stages[tok]?.includes('AWSPENDING'))
      throw new Error('not staged for rotation');
    if (Step === 'createSecret' && !pendingReadable) {
      await client.send(
        new PutSecretValueCommand({
          SecretId,
          ClientRequestToken: tok,
          SecretString: 'new-value',
          VersionStages: ['AWSPENDING'],
        }),
      );
    }
    if (Step === 'finishSecret') {
      const current = Object.keys(stages).find((id) => stages[id]?.includes('AWSCURRENT'));
      await client.send(
        new UpdateSecretVersionStageCommand({
          SecretId,
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: tok,
          RemoveFromVersionId: current,
        }),
      );
      await client.send(
        new UpdateSecretVersionStageCommand({
          SecretId,
          VersionStage: 'AWSPENDING',
          RemoveFromVersionId: tok,
        }),
      );
    }
  };
}

describe('secrets manager emulator: RotateSecret', () => {
  it('creates a valueless AWSPENDING version and runs the four steps in order before answering', async () => {
    const seen: Parameters<typeof tinyRotation>[0] = [];
    server.emulator.setRotationInvoker(tinyRotation(seen));
    clock += 1_000;
    const rotated = await client.send(
      new RotateSecretCommand({
        SecretId: 'rotated',
        RotationLambdaARN: LAMBDA,
        RotationRules: { AutomaticallyAfterDays: 30 },
        ClientRequestToken: token(7),
      }),
    );
    expect(rotated.VersionId).toBe(token(7));
    expect(seen.map((s) => s.event.Step)).toEqual([
      'createSecret',
      'setSecret',
      'testSecret',
      'finishSecret',
    ]);
    // The createSecret step sees the placeholder: staged AWSPENDING, but no value to read yet.
    expect(seen[0]?.stages[token(7)]).toEqual(['AWSPENDING']);
    expect(seen[0]?.pendingReadable).toBe(false);
    expect(seen[1]?.pendingReadable).toBe(true);
    expect(seen[0]?.event.SecretId).toMatch(/^arn:aws:secretsmanager:.*:secret:rotated-/);

    const current = await client.send(new GetSecretValueCommand({ SecretId: 'rotated' }));
    expect(current).toMatchObject({ SecretString: 'new-value', VersionId: token(7) });
    const previous = await client.send(
      new GetSecretValueCommand({ SecretId: 'rotated', VersionStage: 'AWSPREVIOUS' }),
    );
    expect(previous.SecretString).toBe('old-value');
    const described = await client.send(new DescribeSecretCommand({ SecretId: 'rotated' }));
    expect(described).toMatchObject({
      RotationEnabled: true,
      RotationLambdaARN: LAMBDA,
      RotationRules: { AutomaticallyAfterDays: 30 },
      LastRotatedDate: new Date(clock),
      NextRotationDate: new Date(clock + 30 * 86_400_000),
    });

    // The stored Lambda ARN is reused, and a finished rotation does not block the next one.
    await client.send(
      new RotateSecretCommand({ SecretId: 'rotated', ClientRequestToken: token(8) }),
    );
    expect(seen).toHaveLength(8);
  });

  it('stops at a failing step, names it without leaking values, and blocks the next rotation', async () => {
    server.emulator.setRotationInvoker(async (_arn, event) => {
      if (event.Step === 'createSecret') {
        await client.send(
          new PutSecretValueCommand({
            SecretId: event.SecretId,
            ClientRequestToken: event.ClientRequestToken,
            SecretString: JSON.stringify({ keySecret: 'pending-key-secret-123' }),
            VersionStages: ['AWSPENDING'],
          }),
        );
      }
      if (event.Step === 'setSecret')
        throw new Error('login refused for pending-key-secret-123 and old-value');
    });
    const failed = client.send(
      new RotateSecretCommand({
        SecretId: 'rotated',
        RotationLambdaARN: LAMBDA,
        ClientRequestToken: token(1),
      }),
    );
    await expect(failed).rejects.toBeInstanceOf(InvalidRequestException);
    await expect(failed).rejects.toThrow(
      /failed at step setSecret: login refused for \[REDACTED\] and \[REDACTED\]/,
    );

    const retry = client.send(
      new RotateSecretCommand({ SecretId: 'rotated', ClientRequestToken: token(2) }),
    );
    await expect(retry).rejects.toThrow(/previous rotation isn't complete/);
    const described = await client.send(new DescribeSecretCommand({ SecretId: 'rotated' }));
    expect(described.VersionIdsToStages?.[token(1)]).toEqual(['AWSPENDING']);
    expect(described.LastRotatedDate).toBeUndefined();
  });

  it('refuses rotation without a Lambda ARN or without an invoker, leaving the secret unchanged', async () => {
    await expect(client.send(new RotateSecretCommand({ SecretId: 'rotated' }))).rejects.toThrow(
      /RotationLambdaARN/,
    );
    await expect(
      client.send(new RotateSecretCommand({ SecretId: 'rotated', RotationLambdaARN: LAMBDA })),
    ).rejects.toThrow(/no rotation function invoker/);
    const described = await client.send(new DescribeSecretCommand({ SecretId: 'rotated' }));
    expect(described.RotationEnabled).toBe(false);
    expect(Object.values(described.VersionIdsToStages ?? {})).toEqual([['AWSCURRENT']]);
    await expect(
      client.send(new RotateSecretCommand({ SecretId: 'nope', RotationLambdaARN: LAMBDA })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it('with RotateImmediately=false only tests the configuration with testSecret and removes the placeholder', async () => {
    const steps: string[] = [];
    server.emulator.setRotationInvoker(async (_arn, event) => {
      steps.push(event.Step);
      const described = await client.send(new DescribeSecretCommand({ SecretId: event.SecretId }));
      expect(described.VersionIdsToStages?.[event.ClientRequestToken]).toEqual(['AWSPENDING']);
    });
    await client.send(
      new RotateSecretCommand({
        SecretId: 'rotated',
        RotationLambdaARN: LAMBDA,
        RotateImmediately: false,
        ClientRequestToken: token(3),
      }),
    );
    expect(steps).toEqual(['testSecret']);
    const described = await client.send(new DescribeSecretCommand({ SecretId: 'rotated' }));
    expect(described.RotationEnabled).toBe(true);
    expect(described.VersionIdsToStages?.[token(3)]).toBeUndefined();
  });
});
