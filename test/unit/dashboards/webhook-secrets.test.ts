/**
 * `{ secret, key? }` webhook values: what a reference may look like and what is said when it
 * cannot be resolved (file:line, field, secret id; never a value). The secrets' reads are given
 * as the loader would hand them over; reading them through the SDK is the integration test's.
 */
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import type * as JsYaml from '../../../lib/dashboards/vendor/js-yaml-loader.mjs';
import { describe, expect, it, vi } from 'vitest';
import { loadFolder, type DashboardSource } from '../../../lib/dashboards/load';
import { formatFileIssue, validateFiles } from '../../../lib/dashboards/validate';
import type { SecretReads } from '../../../lib/dashboards/webhook-secrets';
import { registerSecret } from '../../../lib/redact';
import { sdkClient, startSecretsManagerServer } from '../../support/secrets-manager';

// Counts YAML parses; the parser itself is the real one.
const yamlLoads = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../lib/dashboards/vendor/js-yaml-loader.mjs', async (original) => {
  const real = await original<typeof JsYaml>();
  return {
    ...real,
    load: (...args: Parameters<typeof real.load>) => {
      yamlLoads.count += 1;
      return real.load(...args);
    },
  };
});

const VALUE = 'https://hooks.example.test/unit/Ab3dE5gH7j';
const TOKEN = 'Token unit-5f1e2d3c4b';

const reads: SecretReads = new Map([
  ['hook/url', { text: VALUE }],
  ['hook/json', { text: JSON.stringify({ token: TOKEN, n: 3 }) }],
  ['hook/plain', { text: 'not json' }],
  ['hook/gone', { problem: 'not found' }],
]);

const file = (url: string, header = '{ secret: hook/json, key: token }') => ({
  file: 'hook.yaml',
  text: [
    'kind: webhook',
    'name: Hook',
    'service: generic',
    `url: ${url}`,
    'headers:',
    `  X-Token: ${header}`,
    '',
  ].join('\n'),
});

const problems = async (url: string, header?: string, secrets: typeof reads | 'offline' = reads) =>
  (await validateFiles([file(url, header)], secrets === 'offline' ? {} : { secrets })).issues.map(
    formatFileIssue,
  );

describe('webhook secret references', () => {
  it('resolve to the values, and the templates keep the references', async () => {
    const { issues, objects } = await validateFiles([file('{ secret: hook/url }')], {
      secrets: reads,
    });
    expect(issues).toEqual([]);
    const [hook] = objects.webhooks;
    expect(hook.url).toBe(VALUE);
    expect(hook.headers).toEqual({ 'X-Token': TOKEN });
    expect(hook.templates).toEqual({
      url: { secret: 'hook/url' },
      headers: { 'X-Token': { secret: 'hook/json', key: 'token' } },
    });
  });

  it('each unresolvable reference is one line naming file:line, field and secret id', async () => {
    expect(await problems('{ secret: hook/gone }')).toEqual([
      'hook.yaml:4:6 url: secret hook/gone not found',
    ]);
    expect(await problems('{ secret: hook/url }', '{ secret: hook/plain, key: token }')).toEqual([
      'hook.yaml:6:12 headers.X-Token: secret hook/plain is not a JSON object, so it has no key "token"',
    ]);
    expect(await problems('{ secret: hook/url }', '{ secret: hook/json, key: nope }')).toEqual([
      'hook.yaml:6:12 headers.X-Token: secret hook/json has no key "nope"',
    ]);
    expect(await problems('{ secret: hook/url }', '{ secret: hook/json, key: n }')).toEqual([
      'hook.yaml:6:12 headers.X-Token: key "n" of secret hook/json is not a string',
    ]);
    expect(await problems('{ secret: hook/unread }')).toEqual([
      'hook.yaml:4:6 url: secret hook/unread was not read (plan and apply read secrets)',
    ]);
  });

  it('a malformed reference is one line saying what it lacks; a literal is still refused', async () => {
    expect(await problems('{}')).toEqual([
      'hook.yaml:4:6 url: expected a ${VARIABLE} or { secret: <id>, key?: <field> }',
    ]);
    expect(await problems('{ key: token }')).toEqual([
      'hook.yaml:4:6 url: `key` names a field of a JSON secret: add `secret: <id or ARN>` beside it',
    ]);
    expect(await problems("{ secret: '' }")).toEqual([
      'hook.yaml:4:6 url: secret: expected a secret id or ARN (a string)',
    ]);
    expect(await problems('{ secret: hook/url, keys: x }')).toEqual([
      'hook.yaml:4:6 url: a secret reference takes secret and key only, not "keys"',
    ]);
    expect(await problems('{ secret: hook/url }', "{ secret: hook/json, key: '' }")).toEqual([
      'hook.yaml:6:12 headers.X-Token: key: expected the name of a field of the JSON secret (a string)',
    ]);
    expect(await problems('{ secret: hook/url }', 'Token literal-value')).toEqual([
      'hook.yaml:6:12 headers.X-Token: write it as a ${VARIABLE} or { secret: <id> }: a literal value would sit in the repository',
    ]);
  });

  it('offline (no reads), a well-formed reference passes validation', async () => {
    expect(await problems('{ secret: hook/anything }', undefined, 'offline')).toEqual([]);
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/pager-AbCdEf';
    expect(await problems(`{ secret: '${arn}' }`, undefined, 'offline')).toEqual([]);
    expect(await problems("{ secret: 'a+b=c.d@e_f-g/h' }", undefined, 'offline')).toEqual([]);
  });

  it('offline, a secret id no secret can have is one line naming it (name characters, length, ARN form)', async () => {
    const offline = (id: string) => problems(`{ secret: '${id}' }`, undefined, 'offline');
    expect(await offline('prod pager')).toEqual([
      'hook.yaml:4:6 url: secret "prod pager" is not a secret name (ASCII letters, digits and /_+=.@- only) or ARN',
    ]);
    expect(await offline('x'.repeat(513))).toEqual([
      `hook.yaml:4:6 url: secret "${'x'.repeat(80)}…" is not a secret name (513 characters, over 512) or ARN`,
    ]);
    expect(await offline('x'.repeat(512))).toEqual([]);
    expect(await offline('arn:aws:secretsmanager:eu-west-1:1234:secret:prod')).toEqual([
      'hook.yaml:4:6 url: secret "arn:aws:secretsmanager:eu-west-1:1234:secret:prod" is not a Secrets Manager ARN (arn:aws:secretsmanager:<region>:<12-digit account>:secret:<name>)',
    ]);
    expect(await offline('arn:aws:s3:::bucket')).toHaveLength(1);
  });

  it('a secret id of a bad form is never read: the plan says its form', async () => {
    expect(await problems("{ secret: 'no such#id' }")).toEqual([
      'hook.yaml:4:6 url: secret "no such#id" is not a secret name (ASCII letters, digits and /_+=.@- only) or ARN',
    ]);
  });

  it('a folder is parsed once per file, also when a webhook file names secrets', async () => {
    registerSecret(VALUE);
    const sm = await startSecretsManagerServer();
    const client = sdkClient(sm.url);
    try {
      await client.send(new CreateSecretCommand({ Name: 'hook/url', SecretString: VALUE }));
      await client.send(
        new CreateSecretCommand({
          Name: 'hook/json',
          SecretString: JSON.stringify({ token: TOKEN }),
        }),
      );
      const texts = new Map([
        ['hook.yaml', file('{ secret: hook/url }').text],
        ['board.yaml', 'name: Board\ntiles: []\n'],
      ]);
      const source: DashboardSource = {
        label: 'memory',
        list: () => Promise.resolve([...texts.keys()]),
        read: (f) => Promise.resolve(texts.get(f)!),
      };
      yamlLoads.count = 0;
      const { objects } = await loadFolder(source, { secretsClient: () => client });
      expect(objects.webhooks[0].headers).toEqual({ 'X-Token': TOKEN });
      expect(yamlLoads.count).toBe(2);
    } finally {
      client.destroy();
      await sm.close();
    }
  });
});
