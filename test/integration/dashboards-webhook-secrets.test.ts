/**
 * A webhook file whose url and header come from Secrets Manager (`{ secret, key? }`), through the
 * CLI against the sandbox with the real SDK client: each secret read once per run, before any
 * write; no change while the secrets hold; a changed header secret makes the plan say the headers
 * are resent; pull writes the references back; a bad reference is one line naming file:line,
 * field and secret id, before any request to the service. No value reaches any output.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { registerSecret } from '../../lib/redact';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';

const captured = createLogger({ level: 'debug', fields: { test: 'dashboards-webhook-secrets' } });
const HOOK_URL = 'https://hooks.example.test/from-secret/Zx8cV4bN2m';
const TOKEN_1 = 'Token secret-first-7c3e9a1f5d';
const TOKEN_2 = 'Token secret-second-2b8d4f6a0e';
const URL_SECRET = 'cloudops/test/hook-url';
const HEADERS_SECRET = 'cloudops/test/hook-headers';
const PLAIN_SECRET = 'cloudops/test/plain';
const PLAIN_VALUE = 'plain-not-json-6Yh2Kq9w';
const SAVED_URL = 'https://hooks.example.test/saved-plan/Lk5jH3gF1d';
const SAVED_TOKEN_1 = 'Token saved-first-9d2c7b4e1a';
const SAVED_TOKEN_2 = 'Token saved-second-3e8a1f6c2b';
const SAVED_URL_SECRET = 'cloudops/test/saved-hook-url';
const SAVED_HEADERS_SECRET = 'cloudops/test/saved-hook-headers';
const VALUES = [HOOK_URL, TOKEN_1, TOKEN_2, PLAIN_VALUE, SAVED_URL, SAVED_TOKEN_1, SAVED_TOKEN_2];

let ds: DashboardsSandbox;
let sm: SecretsManagerClient;
let dir: string;

beforeAll(async () => {
  for (const s of VALUES) registerSecret(s);
  ds = await startDashboardsSandbox('current');
  sm = new SecretsManagerClient({
    region: 'us-east-1',
    endpoint: ds.sb.info.secretsManagerUrl,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await sm.send(new CreateSecretCommand({ Name: URL_SECRET, SecretString: HOOK_URL }));
  await sm.send(
    new CreateSecretCommand({
      Name: HEADERS_SECRET,
      SecretString: JSON.stringify({ token: TOKEN_1 }),
    }),
  );
  await sm.send(new CreateSecretCommand({ Name: PLAIN_SECRET, SecretString: PLAIN_VALUE }));
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-hook-secrets-'));
});
afterAll(async () => {
  sm?.destroy();
  await ds?.sb.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => ds.sb.requestLog.clear());

const cli = async (...argv: string[]) => {
  const run = await ds.cli(...argv);
  captured.debug('cli output', { argv: argv.join(' '), out: run.out, err: run.err });
  for (const value of VALUES) expect(run.out + run.err).not.toContain(value);
  return run;
};
const secretReads = () =>
  ds.sb.requestLog
    .entries()
    .filter((e) => e.surface === 'secretsmanager' && e.operation === 'GetSecretValue');
const webhookRow = (name: string) =>
  ds.sb.store.state.webhooks.find((w) => w.serviceId === ds.sb.info.serviceId && w.name === name);

const HOOK_FILE = [
  'kind: webhook',
  'name: Secret hook',
  'service: generic',
  `url: { secret: ${URL_SECRET} }`,
  'headers:',
  `  X-Token: { secret: ${HEADERS_SECRET}, key: token }`,
  // A second use of the same secret: still one read.
  `  X-Token-Copy: { secret: ${HEADERS_SECRET}, key: token }`,
];

describe('webhook values from Secrets Manager', () => {
  it('applies url and header from secrets, reading each once; no change while they hold', async () => {
    await writeFile(path.join(dir, 'hook.yaml'), HOOK_FILE.join('\n') + '\n');
    const first = await cli('apply', '--dir', dir, '--auto-approve');
    expect({ code: first.code, err: first.err }).toEqual({ code: 0, err: '' });
    expect(webhookRow('Secret hook')).toMatchObject({
      url: HOOK_URL,
      headers: { 'X-Token': TOKEN_1, 'X-Token-Copy': TOKEN_1 },
    });
    expect(secretReads().length).toBe(2);
    // The marker on the service keeps the references, never the values.
    const description = webhookRow('Secret hook')!.description ?? '';
    expect(description).toContain(encodeURIComponent(HEADERS_SECRET));
    for (const value of VALUES) expect(description).not.toContain(encodeURIComponent(value));

    ds.sb.requestLog.clear();
    const same = await cli('plan', '--dir', dir, '--detailed-exitcode');
    expect({ code: same.code, err: same.err }).toEqual({ code: 0, err: '' });
    expect(secretReads().length).toBe(2);
  });

  it('a changed header secret makes the plan resend the headers; apply sends the new value', async () => {
    await sm.send(
      new PutSecretValueCommand({
        SecretId: HEADERS_SECRET,
        SecretString: JSON.stringify({ token: TOKEN_2 }),
      }),
    );
    const plan = await cli('plan', '--dir', dir, '--detailed-exitcode');
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('~ headers: resent (changed)');
    const json = await cli('plan', '--dir', dir, '--json');
    expect(json.out).toContain('resent (changed)');
    expect((await cli('apply', '--dir', dir, '--auto-approve')).code).toBe(0);
    expect(webhookRow('Secret hook')!.headers).toEqual({
      'X-Token': TOKEN_2,
      'X-Token-Copy': TOKEN_2,
    });
    expect((await cli('plan', '--dir', dir, '--detailed-exitcode')).code).toBe(0);
  });

  it('a saved plan creates a webhook from secrets: apply FILE reads each secret once, refuses a changed one with 0 requests, and the file holds no value', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'cloudops-hook-secrets-saved-'));
    const planFile = path.join(folder, '..', `hook-secrets-plan-${Date.now()}.json`);
    const headers = () => ({ token: SAVED_TOKEN_1, other: 'unused-by-the-file' });
    try {
      await sm.send(new CreateSecretCommand({ Name: SAVED_URL_SECRET, SecretString: SAVED_URL }));
      await sm.send(
        new CreateSecretCommand({
          Name: SAVED_HEADERS_SECRET,
          SecretString: JSON.stringify(headers()),
        }),
      );
      const savedHook = [
        'kind: webhook',
        'name: Saved hook',
        'service: generic',
        `url: { secret: ${SAVED_URL_SECRET} }`,
        'headers:',
        `  X-Token: { secret: ${SAVED_HEADERS_SECRET}, key: token }`,
        '',
      ];
      await writeFile(path.join(folder, 'saved-hook.yaml'), savedHook.join('\n'));
      expect((await cli('plan', '--dir', folder, '--out', planFile)).code).toBe(0);
      const bytes = await readFile(planFile);
      // The leak scan reads the captured lines: the plan file's text goes there too.
      captured.debug('plan file', { text: bytes.toString('utf8') });
      for (const value of [...VALUES, SAVED_URL, SAVED_TOKEN_1])
        expect(bytes.includes(Buffer.from(value, 'utf8'))).toBe(false);
      expect(bytes.toString('utf8')).toContain(SAVED_HEADERS_SECRET);

      // Changed between plan and apply: one line naming webhook, field and reference.
      const changed = { ...headers(), token: SAVED_TOKEN_2 };
      await sm.send(
        new PutSecretValueCommand({
          SecretId: SAVED_HEADERS_SECRET,
          SecretString: JSON.stringify(changed),
        }),
      );
      ds.sb.requestLog.clear();
      const refused = await cli('apply', planFile);
      expect(refused.code).toBe(1);
      expect(refused.err).toBe(
        `cloudops dashboards: webhook "Saved hook" headers.X-Token (secret ${SAVED_HEADERS_SECRET}, key token): changed since the plan: re-plan; nothing was applied\n`,
      );
      expect(ds.api()).toEqual([]);
      expect(secretReads().length).toBe(2);

      // Back to the planned value (a new version, the same value): applied as planned.
      await sm.send(
        new PutSecretValueCommand({
          SecretId: SAVED_HEADERS_SECRET,
          SecretString: JSON.stringify(headers()),
        }),
      );
      ds.sb.requestLog.clear();
      const applied = await cli('apply', planFile);
      expect({ code: applied.code, err: applied.err }).toEqual({ code: 0, err: '' });
      expect(applied.out).toMatch(/created +webhook "Saved hook" id=/);
      expect(secretReads().length).toBe(2);
      expect(webhookRow('Saved hook')).toMatchObject({
        url: SAVED_URL,
        headers: { 'X-Token': SAVED_TOKEN_1 },
      });
      const again = await cli('plan', '--dir', folder, '--detailed-exitcode');
      expect({ code: again.code, out: again.out }).toMatchObject({ code: 0 });
    } finally {
      await rm(folder, { recursive: true, force: true });
      await rm(planFile, { force: true });
    }
  });

  it('pull writes the secret references back, and the pulled folder plans no change', async () => {
    const pulled = await mkdtemp(path.join(tmpdir(), 'cloudops-hook-secrets-pull-'));
    try {
      await sm.send(
        new PutSecretValueCommand({
          SecretId: HEADERS_SECRET,
          SecretString: JSON.stringify({ token: TOKEN_2 }),
        }),
      );
      const pull = await cli('pull', '--dir', pulled, '--target', 'hook');
      expect({ code: pull.code, err: pull.err }).toMatchObject({ code: 0 });
      const [file] = (await readdir(pulled)).filter((f) => f.endsWith('.yaml'));
      const text = await readFile(path.join(pulled, file), 'utf8');
      expect(text).toMatch(new RegExp(`url:\\s*\\n?\\s*secret: ${URL_SECRET}`));
      expect(text).toContain(`secret: ${HEADERS_SECRET}`);
      expect(text).toContain('key: token');
      for (const value of VALUES) expect(text).not.toContain(value);
      const plan = await cli('plan', '--dir', pulled, '--detailed-exitcode');
      expect({ code: plan.code, out: plan.out, err: plan.err }).toMatchObject({ code: 0 });
    } finally {
      await rm(pulled, { recursive: true, force: true });
    }
  });

  it('a missing secret, a key of a non-JSON secret and a missing key: one line each, 0 requests', async () => {
    const bad = await mkdtemp(path.join(tmpdir(), 'cloudops-hook-secrets-bad-'));
    try {
      await writeFile(
        path.join(bad, 'bad.yaml'),
        [
          'kind: webhook',
          'name: Bad secrets',
          'service: generic',
          'url: { secret: cloudops/test/absent }',
          'headers:',
          `  X-Plain: { secret: ${PLAIN_SECRET}, key: token }`,
          `  X-Missing: { secret: ${HEADERS_SECRET}, key: nope }`,
          '',
        ].join('\n'),
      );
      const plan = await cli('plan', '--dir', bad);
      expect(plan.code).toBe(1);
      const lines = plan.err.split('\n').filter((l) => l.includes('bad.yaml'));
      expect(lines).toEqual([
        expect.stringMatching(/bad\.yaml:4:\d+ url: secret cloudops\/test\/absent not found$/),
        expect.stringMatching(
          /bad\.yaml:6:\d+ headers\.X-Plain: secret cloudops\/test\/plain is not a JSON object, so it has no key "token"$/,
        ),
        expect.stringMatching(
          /bad\.yaml:7:\d+ headers\.X-Missing: secret cloudops\/test\/hook-headers has no key "nope"$/,
        ),
      ]);
      expect(ds.api()).toEqual([]);
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  });
});
