/**
 * Secret tags as AWS documents them (TagResource, UntagResource, DescribeSecret and ListSecrets
 * with filters and pages), and RotateSecret answering before its steps run (as AWS does).
 */
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  InvalidParameterException,
  ListSecretsCommand,
  PutSecretValueCommand,
  RotateSecretCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateSecretVersionStageCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterEach, describe, expect, it } from 'vitest';
import type { RotationEvent } from '../../sandbox/secrets-manager';
import {
  sdkClient,
  startSecretsManagerServer,
  token,
  type SecretsManagerServer,
} from '../support/secrets-manager';

const LAMBDA = 'arn:aws:lambda:us-east-1:000000000000:function:rotate';
let server: SecretsManagerServer;
let client: SecretsManagerClient;

async function start(options: Parameters<typeof startSecretsManagerServer>[0] = {}) {
  server = await startSecretsManagerServer(options);
  client = sdkClient(server.url);
}
afterEach(async () => {
  client.destroy();
  await server.close();
});

const tagsOf = async (SecretId: string) =>
  (await client.send(new DescribeSecretCommand({ SecretId }))).Tags;

describe('secrets manager emulator: tags', () => {
  it('TagResource adds and overwrites, UntagResource removes; DescribeSecret shows them', async () => {
    await start();
    await client.send(
      new CreateSecretCommand({ Name: 'k', SecretString: 'v', Tags: [{ Key: 'a', Value: '1' }] }),
    );
    await client.send(
      new TagResourceCommand({
        SecretId: 'k',
        Tags: [
          { Key: 'a', Value: '2' },
          { Key: 'b', Value: '' },
        ],
      }),
    );
    expect(await tagsOf('k')).toEqual([
      { Key: 'a', Value: '2' },
      { Key: 'b', Value: '' },
    ]);
    await client.send(new UntagResourceCommand({ SecretId: 'k', TagKeys: ['a', 'missing'] }));
    expect(await tagsOf('k')).toEqual([{ Key: 'b', Value: '' }]);
    await client.send(new UntagResourceCommand({ SecretId: 'k', TagKeys: ['b'] }));
    expect(await tagsOf('k')).toBeUndefined();
  });

  it('refuses the reserved aws: prefix and a 51st tag, naming why', async () => {
    await start();
    server.emulator.createSecret({ name: 'k', secretString: 'v' });
    await expect(
      client.send(new TagResourceCommand({ SecretId: 'k', Tags: [{ Key: 'aws:x', Value: '1' }] })),
    ).rejects.toThrow(/aws: prefix is reserved/);
    const fifty = Array.from({ length: 50 }, (_, i) => ({ Key: `t${i}`, Value: 'x' }));
    await client.send(new TagResourceCommand({ SecretId: 'k', Tags: fifty }));
    const error = await client
      .send(new TagResourceCommand({ SecretId: 'k', Tags: [{ Key: 'one-more', Value: 'x' }] }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidParameterException);
    expect((error as Error).message).toMatch(/at most 50 tags/);
  });

  it('ListSecrets filters by tag key (prefix, ! negates) and pages with NextToken', async () => {
    await start();
    for (let i = 0; i < 5; i++) {
      server.emulator.createSecret({ name: `s${i}`, secretString: 'v' });
      if (i % 2 === 0)
        await client.send(
          new TagResourceCommand({
            SecretId: `s${i}`,
            Tags: [{ Key: 'cloudops:key-record-id', Value: `r${i}` }],
          }),
        );
    }
    const names = async (Filters: { Key: 'tag-key' | 'name'; Values: string[] }[]) =>
      (await client.send(new ListSecretsCommand({ Filters }))).SecretList?.map((s) => s.Name);
    expect(await names([{ Key: 'tag-key', Values: ['cloudops:key-record-id'] }])).toEqual([
      's0',
      's2',
      's4',
    ]);
    expect(await names([{ Key: 'tag-key', Values: ['cloudops:'] }])).toEqual(['s0', 's2', 's4']);
    expect(await names([{ Key: 'tag-key', Values: ['!cloudops:'] }])).toEqual(['s1', 's3']);
    expect(
      await names([
        { Key: 'tag-key', Values: ['cloudops:'] },
        { Key: 'name', Values: ['s2', 's4'] },
      ]),
    ).toEqual(['s2', 's4']);
    const first = await client.send(new ListSecretsCommand({ MaxResults: 2 }));
    expect(first.SecretList?.map((s) => s.Name)).toEqual(['s0', 's1']);
    expect(first.SecretList?.[0].Tags).toEqual([{ Key: 'cloudops:key-record-id', Value: 'r0' }]);
    const rest = await client.send(
      new ListSecretsCommand({ MaxResults: 2, NextToken: first.NextToken }),
    );
    expect(rest.SecretList?.map((s) => s.Name)).toEqual(['s2', 's3']);
    const last = await client.send(
      new ListSecretsCommand({ MaxResults: 2, NextToken: rest.NextToken }),
    );
    expect([last.SecretList?.map((s) => s.Name), last.NextToken]).toEqual([['s4'], undefined]);
  });
});

describe('secrets manager emulator: RotateSecret in the async timing (as AWS)', () => {
  it('answers with the version id before the steps run; the stages show the rotation finish', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const steps: string[] = [];
    await start({
      rotationTiming: 'async',
      invokeRotation: async (_arn, event: RotationEvent) => {
        await gate;
        steps.push(event.Step);
        const { SecretId, ClientRequestToken: tok } = event;
        if (event.Step === 'createSecret')
          await client.send(
            new PutSecretValueCommand({
              SecretId,
              ClientRequestToken: tok,
              SecretString: 'new',
              VersionStages: ['AWSPENDING'],
            }),
          );
        if (event.Step === 'finishSecret') {
          const stages = (await client.send(new DescribeSecretCommand({ SecretId })))
            .VersionIdsToStages!;
          const current = Object.keys(stages).find((id) => stages[id].includes('AWSCURRENT'));
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
      },
    });
    server.emulator.createSecret({ name: 'r', secretString: 'old' });
    const answer = await client.send(
      new RotateSecretCommand({
        SecretId: 'r',
        ClientRequestToken: token(1),
        RotationLambdaARN: LAMBDA,
      }),
    );
    expect(answer.VersionId).toBe(token(1));
    expect(steps).toEqual([]);
    expect(
      (await client.send(new DescribeSecretCommand({ SecretId: 'r' }))).VersionIdsToStages?.[
        token(1)
      ],
    ).toEqual(['AWSPENDING']);
    release();
    await server.emulator.settled();
    expect(steps).toEqual(['createSecret', 'setSecret', 'testSecret', 'finishSecret']);
    expect(
      (await client.send(new DescribeSecretCommand({ SecretId: 'r' }))).VersionIdsToStages?.[
        token(1)
      ],
    ).toEqual(['AWSCURRENT']);
  });

  it('a failing step leaves AWSPENDING in place and the answer was a success (AWS retries it)', async () => {
    await start({
      rotationTiming: 'async',
      invokeRotation: () => Promise.reject(new Error('the key has expired')),
    });
    server.emulator.createSecret({ name: 'r', secretString: 'old' });
    await client.send(
      new RotateSecretCommand({
        SecretId: 'r',
        ClientRequestToken: token(2),
        RotationLambdaARN: LAMBDA,
      }),
    );
    await server.emulator.settled();
    const stages = (await client.send(new DescribeSecretCommand({ SecretId: 'r' })))
      .VersionIdsToStages;
    expect(stages?.[token(2)]).toEqual(['AWSPENDING']);
    await expect(
      client.send(new RotateSecretCommand({ SecretId: 'r', ClientRequestToken: token(3) })),
    ).rejects.toThrow(/previous rotation isn't complete/);
  });
});
