/**
 * `{ secret, key? }` webhook values: what a reference may look like and what is said when it
 * cannot be resolved (file:line, field, secret id; never a value). The secrets' reads are given
 * as the loader would hand them over; reading them through the SDK is the integration test's.
 */
import { describe, expect, it } from 'vitest';
import { formatFileIssue, validateFiles } from '../../../lib/dashboards/validate';
import type { SecretReads } from '../../../lib/dashboards/webhook-secrets';

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

  it('a malformed reference is one line; a literal is still refused', async () => {
    const shape = 'expected a ${VARIABLE} or { secret: <id>, key?: <field> }';
    expect(await problems('{ key: token }')).toEqual([`hook.yaml:4:6 url: ${shape}`]);
    expect(await problems("{ secret: '' }")).toEqual([`hook.yaml:4:6 url: ${shape}`]);
    expect(await problems('{ secret: hook/url, keys: x }')).toEqual([
      `hook.yaml:4:6 url: ${shape}`,
    ]);
    expect(await problems('{ secret: hook/url }', 'Token literal-value')).toEqual([
      'hook.yaml:6:12 headers.X-Token: write it as a ${VARIABLE} or { secret: <id> }: a literal value would sit in the repository',
    ]);
  });

  it('offline (no reads), a well-formed reference passes validation', async () => {
    expect(await problems('{ secret: hook/anything }', undefined, 'offline')).toEqual([]);
  });
});
