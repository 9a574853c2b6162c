import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  InvalidParameterException,
  InvalidRequestException,
  ListSecretsCommand,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  sdkClient,
  startSecretsManagerServer,
  token,
  type SecretsManagerServer,
} from '../support/secrets-manager';

let server: SecretsManagerServer;
let client: SecretsManagerClient;
let clock = Date.UTC(2025, 0, 1);

beforeEach(async () => {
  clock = Date.UTC(2025, 0, 1);
  server = await startSecretsManagerServer({ now: () => clock });
  client = sdkClient(server.url);
});

afterEach(async () => {
  client.destroy();
  await server.close();
});

async function stagesOf(secretId: string): Promise<Record<string, string[]>> {
  const described = await client.send(new DescribeSecretCommand({ SecretId: secretId }));
  return described.VersionIdsToStages ?? {};
}

describe('secrets manager emulator: versions and labels through the real SDK', () => {
  it('creates a secret whose first version is AWSCURRENT, found by name, ARN and partial ARN', async () => {
    const created = await client.send(
      new CreateSecretCommand({
        Name: 'app/key',
        SecretString: '{"v":1}',
        ClientRequestToken: token(1),
      }),
    );
    expect(created.ARN).toMatch(
      /^arn:aws:secretsmanager:us-east-1:000000000000:secret:app\/key-[A-Za-z0-9]{6}$/,
    );
    expect(created.VersionId).toBe(token(1));
    for (const id of ['app/key', created.ARN!, created.ARN!.slice(0, -7)]) {
      const got = await client.send(new GetSecretValueCommand({ SecretId: id }));
      expect(got.SecretString).toBe('{"v":1}');
      expect(got.VersionStages).toEqual(['AWSCURRENT']);
      expect(got.CreatedDate).toEqual(new Date(clock));
    }
    await expect(
      client.send(new CreateSecretCommand({ Name: 'app/key', SecretString: 'x' })),
    ).rejects.toBeInstanceOf(ResourceExistsException);
  });

  it('puts a pending version, reads it by stage and id, then moves AWSCURRENT with AWSPREVIOUS following', async () => {
    await client.send(
      new CreateSecretCommand({ Name: 's', SecretString: 'one', ClientRequestToken: token(1) }),
    );
    clock += 60_000;
    const put = await client.send(
      new PutSecretValueCommand({
        SecretId: 's',
        SecretString: 'two',
        ClientRequestToken: token(2),
        VersionStages: ['AWSPENDING'],
      }),
    );
    expect(put.VersionStages).toEqual(['AWSPENDING']);
    expect((await client.send(new GetSecretValueCommand({ SecretId: 's' }))).SecretString).toBe(
      'one',
    );
    const pending = await client.send(
      new GetSecretValueCommand({ SecretId: 's', VersionStage: 'AWSPENDING' }),
    );
    expect(pending).toMatchObject({ SecretString: 'two', VersionId: token(2) });
    const byIdAndStage = await client.send(
      new GetSecretValueCommand({ SecretId: 's', VersionId: token(2), VersionStage: 'AWSPENDING' }),
    );
    expect(byIdAndStage.SecretString).toBe('two');
    await expect(
      client.send(
        new GetSecretValueCommand({
          SecretId: 's',
          VersionId: token(1),
          VersionStage: 'AWSPENDING',
        }),
      ),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);

    // Moving AWSCURRENT requires naming the version that holds it.
    await expect(
      client.send(
        new UpdateSecretVersionStageCommand({
          SecretId: 's',
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: token(2),
        }),
      ),
    ).rejects.toBeInstanceOf(InvalidParameterException);
    await expect(
      client.send(
        new UpdateSecretVersionStageCommand({
          SecretId: 's',
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: token(2),
          RemoveFromVersionId: token(2),
        }),
      ),
    ).rejects.toThrow(/not attached to version/);

    await client.send(
      new UpdateSecretVersionStageCommand({
        SecretId: 's',
        VersionStage: 'AWSCURRENT',
        MoveToVersionId: token(2),
        RemoveFromVersionId: token(1),
      }),
    );
    await client.send(
      new UpdateSecretVersionStageCommand({
        SecretId: 's',
        VersionStage: 'AWSPENDING',
        RemoveFromVersionId: token(2),
      }),
    );
    expect(await stagesOf('s')).toEqual({
      [token(1)]: ['AWSPREVIOUS'],
      [token(2)]: ['AWSCURRENT'],
    });
    expect((await client.send(new GetSecretValueCommand({ SecretId: 's' }))).SecretString).toBe(
      'two',
    );
    const previous = await client.send(
      new GetSecretValueCommand({ SecretId: 's', VersionStage: 'AWSPREVIOUS' }),
    );
    expect(previous.SecretString).toBe('one');
  });

  it('PutSecretValue without VersionStages makes the version AWSCURRENT and the old one AWSPREVIOUS', async () => {
    await client.send(
      new CreateSecretCommand({ Name: 's', SecretString: 'one', ClientRequestToken: token(1) }),
    );
    await client.send(
      new PutSecretValueCommand({
        SecretId: 's',
        SecretString: 'two',
        ClientRequestToken: token(2),
      }),
    );
    await client.send(
      new PutSecretValueCommand({
        SecretId: 's',
        SecretString: 'three',
        ClientRequestToken: token(3),
      }),
    );
    expect(await stagesOf('s')).toEqual({
      [token(2)]: ['AWSPREVIOUS'],
      [token(3)]: ['AWSCURRENT'],
    });

    // Version 1 lost its last label: deprecated, listed only on request.
    const listed = await client.send(new ListSecretVersionIdsCommand({ SecretId: 's' }));
    expect(listed.Versions?.map((v) => [v.VersionId, v.VersionStages])).toEqual([
      [token(2), ['AWSPREVIOUS']],
      [token(3), ['AWSCURRENT']],
    ]);
    const all = await client.send(
      new ListSecretVersionIdsCommand({ SecretId: 's', IncludeDeprecated: true }),
    );
    expect(all.Versions?.map((v) => v.VersionId)).toEqual([token(1), token(2), token(3)]);
    expect(all.Versions?.[0]?.CreatedDate).toBeInstanceOf(Date);
  });

  it('is idempotent for the same token and value, and refuses the same token with a new value', async () => {
    await client.send(
      new CreateSecretCommand({ Name: 's', SecretString: 'one', ClientRequestToken: token(1) }),
    );
    const first = await client.send(
      new PutSecretValueCommand({
        SecretId: 's',
        SecretString: 'two',
        ClientRequestToken: token(2),
      }),
    );
    const again = await client.send(
      new PutSecretValueCommand({
        SecretId: 's',
        SecretString: 'two',
        ClientRequestToken: token(2),
      }),
    );
    expect(again.VersionId).toBe(first.VersionId);
    expect(await stagesOf('s')).toEqual({
      [token(1)]: ['AWSPREVIOUS'],
      [token(2)]: ['AWSCURRENT'],
    });
    const conflict = client.send(
      new PutSecretValueCommand({
        SecretId: 's',
        SecretString: 'other',
        ClientRequestToken: token(2),
      }),
    );
    await expect(conflict).rejects.toBeInstanceOf(ResourceExistsException);
    await expect(conflict).rejects.not.toThrow(/other/);
  });

  it('answers the documented exceptions for unknown secrets, labels and bad input', async () => {
    await expect(
      client.send(new GetSecretValueCommand({ SecretId: 'missing' })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(
      client.send(new DescribeSecretCommand({ SecretId: 'missing' })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(
      client.send(new PutSecretValueCommand({ SecretId: 'missing', SecretString: 'x' })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
    await client.send(new CreateSecretCommand({ Name: 's', SecretString: 'one' }));
    await expect(
      client.send(new GetSecretValueCommand({ SecretId: 's', VersionStage: 'AWSPENDING' })),
    ).rejects.toThrow(/staging label: AWSPENDING/);
    await expect(
      client.send(
        new PutSecretValueCommand({
          SecretId: 's',
          SecretString: 'x',
          ClientRequestToken: 'short',
        }),
      ),
    ).rejects.toThrow(/ClientRequestToken/);
    await expect(
      client.send(
        new UpdateSecretVersionStageCommand({
          SecretId: 's',
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: token(9),
        }),
      ),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it('reports timestamps in epoch seconds and rotation metadata in DescribeSecret', async () => {
    const seeded = server.emulator.createSecret({
      name: 'seeded',
      secretString: 'v',
      rotationEnabled: true,
      rotationLambdaArn: 'arn:aws:lambda:us-east-1:000000000000:function:rotate',
    });
    clock += 5_000;
    await client.send(
      new PutSecretValueCommand({
        SecretId: 'seeded',
        SecretString: 'w',
        ClientRequestToken: token(2),
      }),
    );
    const described = await client.send(new DescribeSecretCommand({ SecretId: seeded.arn }));
    expect(described).toMatchObject({
      ARN: seeded.arn,
      Name: 'seeded',
      RotationEnabled: true,
      RotationLambdaARN: 'arn:aws:lambda:us-east-1:000000000000:function:rotate',
      LastChangedDate: new Date(clock),
      CreatedDate: new Date(clock - 5_000),
      VersionIdsToStages: { [seeded.versionId]: ['AWSPREVIOUS'], [token(2)]: ['AWSCURRENT'] },
    });
    expect(described.LastRotatedDate).toBeUndefined();
  });

  it('lists and deletes secrets', async () => {
    await client.send(new CreateSecretCommand({ Name: 'a', SecretString: '1' }));
    await client.send(new CreateSecretCommand({ Name: 'b', SecretString: '2' }));
    const deleted = await client.send(
      new DeleteSecretCommand({ SecretId: 'a', RecoveryWindowInDays: 7 }),
    );
    expect(deleted.DeletionDate).toEqual(new Date(clock + 7 * 86_400_000));
    await expect(client.send(new GetSecretValueCommand({ SecretId: 'a' }))).rejects.toBeInstanceOf(
      InvalidRequestException,
    );
    const listed = await client.send(new ListSecretsCommand({}));
    expect(listed.SecretList?.map((s) => s.Name)).toEqual(['b']);
    await client.send(new DeleteSecretCommand({ SecretId: 'b', ForceDeleteWithoutRecovery: true }));
    await expect(client.send(new DescribeSecretCommand({ SecretId: 'b' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  it('requires an Authorization header and a known operation', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.1', ...headers },
        body: '{}',
      });
    const unsigned = await post({ 'x-amz-target': 'secretsmanager.ListSecrets' });
    expect(unsigned.status).toBe(400);
    expect(await unsigned.json()).toMatchObject({ __type: 'MissingAuthenticationTokenException' });
    const unknown = await post({
      'x-amz-target': 'secretsmanager.Nope',
      authorization: 'AWS4-HMAC-SHA256 x',
    });
    expect(unknown.headers.get('x-amzn-errortype')).toBe('UnknownOperationException');
  });

  it('logs requests by operation, status and secret name only', async () => {
    const entries: unknown[] = [];
    server.emulator.onRequest = (entry) => entries.push(entry);
    const created = await client.send(
      new CreateSecretCommand({ Name: 'logged', SecretString: 'value-never-logged' }),
    );
    await client.send(new GetSecretValueCommand({ SecretId: created.ARN }));
    await client
      .send(new GetSecretValueCommand({ SecretId: 'logged', VersionStage: 'NOPE' }))
      .catch(() => undefined);
    expect(entries).toEqual([
      { operation: 'CreateSecret', status: 200, secretName: 'logged' },
      { operation: 'GetSecretValue', status: 200, secretName: 'logged' },
      {
        operation: 'GetSecretValue',
        status: 400,
        secretName: 'logged',
        errorType: 'ResourceNotFoundException',
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain('value-never-logged');
  });

  it('persists through toJSON and restores into a new emulator', async () => {
    let changes = 0;
    await server.close();
    server = await startSecretsManagerServer({ now: () => clock, onChange: () => (changes += 1) });
    client.destroy();
    client = sdkClient(server.url);
    await client.send(
      new CreateSecretCommand({ Name: 'p', SecretString: 'one', ClientRequestToken: token(1) }),
    );
    await client.send(
      new PutSecretValueCommand({
        SecretId: 'p',
        SecretString: 'two',
        ClientRequestToken: token(2),
        VersionStages: ['AWSPENDING'],
      }),
    );
    expect(changes).toBeGreaterThanOrEqual(2);
    const saved = JSON.parse(JSON.stringify(server.emulator.toJSON())) as unknown;

    const restored = await startSecretsManagerServer({ state: saved as never, now: () => clock });
    const other = sdkClient(restored.url);
    try {
      expect(await other.send(new DescribeSecretCommand({ SecretId: 'p' }))).toMatchObject({
        VersionIdsToStages: { [token(1)]: ['AWSCURRENT'], [token(2)]: ['AWSPENDING'] },
      });
      const pending = await other.send(
        new GetSecretValueCommand({ SecretId: 'p', VersionStage: 'AWSPENDING' }),
      );
      expect(pending.SecretString).toBe('two');
    } finally {
      other.destroy();
      await restored.close();
    }
  });
});

describe('secrets manager emulator: endpoint from the environment', () => {
  it('is reached through AWS_ENDPOINT_URL_SECRETS_MANAGER', async () => {
    const previous = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = server.url;
    const fromEnv = new SecretsManagerClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    try {
      server.emulator.createSecret({ name: 'env', secretString: 'via-env' });
      expect(
        (await fromEnv.send(new GetSecretValueCommand({ SecretId: 'env' }))).SecretString,
      ).toBe('via-env');
    } finally {
      fromEnv.destroy();
      if (previous === undefined) delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
      else process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = previous;
    }
  });
});
