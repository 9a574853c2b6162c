/**
 * `cloudops doctor` against a sandbox: what works is said (which key, when it expires, the
 * secrets' rotation, the rate budget), and each failure names the setting to fix. A 401 from any
 * other command points here too.
 */
import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv, sandboxEnvFile, EXAMPLE_WEBHOOK_VARS } from '../../cli/connect';
import { keyCheck, rateLimitCheck, secretCheck } from '../../cli/doctor/checks';
import type { KeyRecord } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox';
import { runCapture } from '../support/cli';
import { startTestSandbox } from '../support/sandbox';
import { sdkClient } from '../support/secrets-manager';

let sandbox: Sandbox;
let dir: string;
/** The settings `cloudops sandbox --write-env` writes: key and token by secret id. */
let bySecret: Record<string, string>;
/** The same key and token as values. */
let byValue: Record<string, string>;

beforeAll(async () => {
  sandbox = await startTestSandbox({ profile: 'current' });
  bySecret = { ...sandboxEnvFile(sandbox.info), CLOUDOPS_LOG_LEVEL: 'silent' };
  byValue = { ...sandboxEnv(sandbox.info), CLOUDOPS_LOG_LEVEL: 'silent' };
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-doctor-'));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const doctor = (env: Record<string, string | undefined>, ...args: string[]) =>
  runCapture(['doctor', ...args], { env });
const suffix = () => sandbox.info.keyId.slice(-4);

describe('cloudops doctor, all good', () => {
  it('says which key it authenticates as, the secrets and their rotation, and the budget', async () => {
    const before = sandbox.requestLog.entries().length;
    const run = await doctor(bySecret);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^\\[warn\\] management API: .*authenticates as key …${suffix()} \\("[^"]+", enabled\\), which never expires$`,
        'm',
      ),
    );
    expect(run.stdout).toMatch(
      /^\[ok {2}\] secret CLOUDOPS_KEY_SECRET_ID: arn:\S+: rotation enabled/m,
    );
    expect(run.stdout).toMatch(
      /^\[ok {2}\] secret CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID: arn:\S+: no rotation \(tokens are replaced by hand\)/m,
    );
    for (const id of sandbox.info.serviceIds)
      expect(run.stdout).toMatch(
        new RegExp(`^\\[ok {2}\\] observability \\(service ${id}\\): reachable`, 'm'),
      );
    expect(run.stdout).toMatch(
      /^\[ok {2}\] rate limit \(management key\): this run used \d+ of 10 requests per 10 s/m,
    );
    expect(run.stdout).not.toContain(sandbox.info.keySecret);

    // One request for the key list and one per service: nothing more to find all this out.
    const calls = sandbox.requestLog
      .entries()
      .slice(before)
      .filter((e) => e.surface !== 'admin');
    expect(calls.filter((e) => e.path.endsWith('/keys'))).toHaveLength(1);
    expect(calls.filter((e) => e.path.endsWith('/observability/dashboards'))).toHaveLength(
      sandbox.info.serviceIds.length,
    );
    expect(calls.filter((e) => e.surface !== 'secretsmanager')).toHaveLength(
      1 + sandbox.info.serviceIds.length,
    );
  });

  it('reads the service’s RateLimit headers in open-source mode', async () => {
    const run = await doctor({ ...byValue, CLOUDOPS_OBSERVABILITY_MODE: 'open-source' }, '--json');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as {
      ok: boolean;
      checks: { name: string; detail: string }[];
    };
    expect(result.ok).toBe(true);
    const token = result.checks.find((c) => c.name === 'rate limit (observability token)');
    expect(token?.detail).toMatch(
      /^\d+ of \d+ requests left, the window resets in \d+ s \(the service's RateLimit headers\)$/,
    );
    expect(result.checks.find((c) => c.name === 'observability API')?.detail).toContain(
      'accepts the token',
    );
  });
  it('open-source mode without a management key: complete for dashboards, a warning for the rest', async () => {
    const before = sandbox.requestLog.entries().length;
    const run = await doctor({
      CLOUDOPS_OBSERVABILITY_MODE: 'open-source',
      CLOUDOPS_OBSERVABILITY_URL: sandbox.info.observabilityUrl,
      CLOUDOPS_OBSERVABILITY_TOKEN: sandbox.info.observabilityToken,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^\[warn\] settings: open-source mode: .*no management API \(pipes and keys need it\)$/m,
    );
    expect(run.stdout).not.toContain('management API:');
    const calls = sandbox.requestLog.entries().slice(before);
    expect(calls.map((e) => e.surface)).not.toContain('management');
  });
});

describe('cloudops doctor names the setting to fix', () => {
  it('a wrong key given by value: CLOUDOPS_KEY_SECRET (exit 1)', async () => {
    const run = await doctor({ ...byValue, CLOUDOPS_KEY_SECRET: 'wrong-wrong-wrong-wrong' });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^\[FAIL\] management API: GET \/v1\/organizations\/\S+\/keys failed with 401/m,
    );
    expect(run.stdout).toMatch(/^ +fix: check CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET$/m);
    expect(run.stdout).not.toContain('wrong-wrong-wrong-wrong');
  });

  it('a wrong key in the secret: CLOUDOPS_KEY_SECRET_ID', async () => {
    const own = await startTestSandbox({ profile: 'current' });
    const secrets = sdkClient(own.info.secretsManagerUrl);
    try {
      await secrets.send(
        new PutSecretValueCommand({
          SecretId: own.info.keySecretId,
          SecretString: JSON.stringify({
            organizationId: own.info.organizationId,
            keyId: own.info.keyId,
            keySecret: 'not-the-key-secret-at-all',
            keyRecordId: own.info.keyRecordId,
            roles: ['admin'],
          }),
        }),
      );
      const run = await doctor({ ...sandboxEnvFile(own.info), CLOUDOPS_LOG_LEVEL: 'silent' });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        /^ +fix: check CLOUDOPS_KEY_SECRET_ID \(the secret holding the key\)$/m,
      );
    } finally {
      secrets.destroy();
      await own.close();
    }
  });

  it('a wrong token in open-source mode: CLOUDOPS_OBSERVABILITY_TOKEN', async () => {
    const run = await doctor({
      ...byValue,
      CLOUDOPS_OBSERVABILITY_MODE: 'open-source',
      CLOUDOPS_OBSERVABILITY_TOKEN: 'hdx_not_a_token',
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^\[FAIL\] observability API: .*401/m);
    expect(run.stdout).toMatch(/^ +fix: check CLOUDOPS_OBSERVABILITY_TOKEN$/m);
  });

  it('a secret id that does not exist: that setting', async () => {
    const run = await doctor({ ...bySecret, CLOUDOPS_KEY_SECRET_ID: 'cloudops/no-such-secret' });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^\[FAIL\] secret CLOUDOPS_KEY_SECRET_ID: AWS answered ResourceNotFoundException/m,
    );
    expect(run.stdout).toMatch(/^ +fix: check CLOUDOPS_KEY_SECRET_ID$/m);
  });

  it('a service that is not there: CLOUDOPS_SERVICE_ID', async () => {
    const run = await doctor({
      ...byValue,
      CLOUDOPS_SERVICE_ID: '00000000-0000-4000-8000-000000000001',
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^ +fix: check CLOUDOPS_SERVICE_ID$/m);
  });

  it('an address nothing listens on: CLOUDOPS_API_URL, at once', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const run = await doctor({ ...byValue, CLOUDOPS_API_URL: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^\[FAIL\] CLOUDOPS_API_URL: cannot reach the management API/m);
  });

  it('settings missing: names them all, calls nothing, exits 64', async () => {
    const before = sandbox.requestLog.entries().length;
    const run = await doctor({ CLOUDOPS_API_URL: sandbox.info.apiUrl });
    expect(run.code).toBe(64);
    expect(run.stdout).toMatch(
      /^\[FAIL\] settings: missing for managed mode: CLOUDOPS_KEY_ID, CLOUDOPS_KEY_SECRET, CLOUDOPS_ORGANIZATION_ID, CLOUDOPS_SERVICE_ID$/m,
    );
    expect(sandbox.requestLog.entries().length).toBe(before);
    const bad = await doctor({ ...byValue, CLOUDOPS_SERVICE_ID: 'not-a-uuid' });
    expect(bad.code).toBe(64);
    expect(bad.stdout).toContain('CLOUDOPS_SERVICE_ID');
  });
});

describe('a 401 anywhere points at the key settings and at doctor', () => {
  it('dashboards plan', async () => {
    const run = await runCapture(['dashboards', 'plan', '--dir', 'dashboards'], {
      env: {
        ...byValue,
        CLOUDOPS_KEY_SECRET: 'wrong-wrong-wrong-wrong',
        CLOUDOPS_VAR_WEBHOOK_ID: sandbox.info.webhookId,
        ...EXAMPLE_WEBHOOK_VARS,
      },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /401.* — the management API refused the key: check CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET \(or CLOUDOPS_KEY_SECRET_ID\); `cloudops doctor` checks every setting$/m,
    );
  });

  it('pipes check: the listings it could not make, then the hint once', async () => {
    const run = await runCapture(['pipes', 'check', '--state-file', path.join(dir, 'p.json')], {
      env: { ...byValue, CLOUDOPS_KEY_SECRET: 'wrong-wrong-wrong-wrong' },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^error \(list\) service .*401/m);
    expect(run.stdout).toMatch(
      /^the management API refused the key: check CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET \(or CLOUDOPS_KEY_SECRET_ID\); `cloudops doctor` checks every setting$/m,
    );
    expect(run.stdout.match(/refused the key/g)).toHaveLength(1);
  });

  it('alerts provision, per event', async () => {
    const file = path.join(dir, 'request.json');
    writeFileSync(
      file,
      JSON.stringify({
        source: 'test',
        'detail-type': 'Alert Provision Requested',
        time: new Date().toISOString(),
        detail: {
          key: 'doctor-test',
          alert: {
            dashboardId: '6b07d35a82fb6adb7c2e1e70',
            tileId: '6b07d35a82fb6adb7c2e1e71',
            threshold: 1,
            interval: '5m',
            source: 'tile',
            thresholdType: 'above',
            channel: { type: 'webhook', webhookId: sandbox.info.webhookId },
            name: 'x',
          },
        },
      }),
    );
    const run = await runCapture(
      ['alerts', 'provision', '--file', file, '--state-file', path.join(dir, 'v.json')],
      {
        env: { ...byValue, CLOUDOPS_KEY_SECRET: 'wrong-wrong-wrong-wrong' },
      },
    );
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('check CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET');
    expect(run.stdout + run.stderr).toContain('`cloudops doctor`');
  });
});

describe('cloudops doctor, key expiry', () => {
  it('warns from CLOUDOPS_KEY_EXPIRY_WARN_DAYS, the threshold the key sentinel uses', async () => {
    const record = sandbox.store.key(sandbox.info.keyRecordId)!;
    record.expireAt = new Date(Date.now() + 10.5 * 86_400_000).toISOString();
    try {
      const line = (out: string) => out.split('\n').find((l) => l.includes('management API:'));
      const byDefault = await doctor(bySecret);
      expect(line(byDefault.stdout)).toMatch(/^\[ok {2}\] .*\(in 10 days\)$/);
      const configured = await doctor({ ...bySecret, CLOUDOPS_KEY_EXPIRY_WARN_DAYS: '14' });
      expect(line(configured.stdout)).toMatch(/^\[warn\] .*\(in 10 days\)$/);
      expect(configured.code).toBe(0);
      const invalid = await doctor({ ...bySecret, CLOUDOPS_KEY_EXPIRY_WARN_DAYS: 'soon' });
      expect(invalid.code).toBe(64);
      expect(invalid.stdout + invalid.stderr).toContain('CLOUDOPS_KEY_EXPIRY_WARN_DAYS');
    } finally {
      record.expireAt = null;
    }
  });
});

describe('the checks, each on its own', () => {
  const NOW = Date.parse('2026-11-26T00:00:00Z');
  const AT = { now: NOW, warnDays: 7 };
  const record = (over: Partial<KeyRecord>): KeyRecord => ({
    id: '44ece6d1-df67-478d-976b-fe224df22775',
    name: 'ci',
    keySuffix: 'ABCD',
    expireAt: null,
    state: 'enabled',
    ...over,
  });

  it('a key that expires within a week is a warning saying to rotate', () => {
    const soon = keyCheck(
      [record({ expireAt: '2026-11-29T00:00:00Z' })],
      { keyId: 'XXXXABCD' },
      AT,
      'u',
    );
    expect(soon).toMatchObject({ status: 'warn', fix: 'rotate it now: `cloudops keys rotate`' });
    expect(soon.detail).toBe(
      'u: authenticates as key …ABCD ("ci", enabled), expires 2026-11-29 (in 3 days)',
    );
    const later = keyCheck(
      [record({ expireAt: '2027-01-25T00:00:00Z' })],
      { keyId: 'XXXXABCD' },
      AT,
      'u',
    );
    expect(later.status).toBe('ok');
  });

  it('two keys with the same suffix: authenticated, expiry unknown (no guess)', () => {
    const both = [
      record({}),
      record({ id: '54ece6d1-df67-478d-976b-fe224df22775', name: 'other' }),
    ];
    const check = keyCheck(both, { keyId: 'XXXXABCD' }, AT, 'u');
    expect(check.status).toBe('warn');
    expect(check.detail).toContain('2 keys in the organization');
    // The record id in a secret settles it.
    expect(
      keyCheck(both, { keyId: 'XXXXABCD', keyRecordId: both[1].id }, AT, 'u').detail,
    ).toContain('"other"');
  });

  it('a key secret without rotation is a warning; a token secret never rotates', () => {
    expect(secretCheck('S', 'arn', { RotationEnabled: false }, 'key').status).toBe('warn');
    expect(secretCheck('S', 'arn', { RotationEnabled: false }, 'token').status).toBe('ok');
    expect(
      secretCheck(
        'S',
        'arn',
        {
          RotationEnabled: true,
          RotationRules: { AutomaticallyAfterDays: 30 },
          LastRotatedDate: new Date('2026-11-01T00:00:00Z'),
          NextRotationDate: new Date('2026-12-01T00:00:00Z'),
        },
        'key',
      ).detail,
    ).toBe('arn: rotation enabled every 30 days; last rotated 2026-11-01, next 2026-12-01');
  });

  it('the budget: the service’s own count when it sends one, else what this run used', () => {
    const limit = { limit: 10, windowMs: 10_000 };
    expect(rateLimitCheck('k', 3, limit, { remaining: '7', limit: '10', reset: '4' }).detail).toBe(
      "7 of 10 requests left, the window resets in 4 s (the service's RateLimit headers)",
    );
    expect(rateLimitCheck('k', 3, limit, undefined).detail).toMatch(
      /^this run used 3 of 10 requests per 10 s/,
    );
  });
});
