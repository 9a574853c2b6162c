/**
 * The deployed key sentinel, through its Lambda handler and its env as the stack sets it: key
 * secrets in the sandbox's Secrets Manager (described, never read but its own), keys and
 * activities read from the sandbox over HTTP, open findings in the watch table (dynalite),
 * notices through its one notifier, SNS (mocked at the SDK: each published notice is read back).
 */
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createSentinelHandler } from '../../functions/rotate-key/sentinel';
import { createManagementClient } from '../../lib/api';
import { NOT_CONFIGURED_TEMPLATE } from '../../lib/config';
import { staticCredentials } from '../../lib/credentials';
import { createLogger, type Logger } from '../../lib/log';
import { managementKeySecret } from '../../lib/schemas';
import type { KeyNotice } from '../../lib/watch/subjects/key';
import { closeAfterEach } from '../support/close-after-each';
import { mockTopic, TOPIC_ARN } from '../support/sns-topic';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import { DAY, idleKey, startRotationSandbox, type RotationSandbox } from './rotation-harness';

const topic = mockTopic();
const open = closeAfterEach<RotationSandbox | LocalDynamo>();

beforeEach(() => topic.reset());
afterAll(() => topic.restore());

interface Setup {
  rs: RotationSandbox;
  dynamo: LocalDynamo;
  /** The secret ids GetSecretValue was called with, by the sentinel. */
  valuesRead: string[];
}

async function setup(): Promise<Setup> {
  const rs = await startRotationSandbox(undefined, 'current');
  const dynamo = await startLocalDynamo();
  open.push(rs, dynamo);
  return { rs, dynamo, valuesRead: [] };
}

/** The sandbox's client, recording which secret values the sentinel reads. */
function recording(sm: SecretsManagerClient, valuesRead: string[]): SecretsManagerClient {
  return new Proxy(sm, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver) as unknown;
      return (command: { input: { SecretId?: string } }) => {
        if (command instanceof GetSecretValueCommand) valuesRead.push(command.input.SecretId!);
        return target.send(command as never);
      };
    },
  });
}

/**
 * The handler with the env the stack gives it: every key secret by id, its own key's secret,
 * the watch table and its notifiers; `env` adds or removes ('') variables.
 */
function sentinel(
  s: Setup,
  secretIds: string[],
  env: Record<string, string> = {},
  logger?: Logger,
) {
  const handler = createSentinelHandler({
    ...(logger ? { logger } : {}),
    env: {
      CLOUDOPS_API_URL: s.rs.sb.info.apiUrl,
      CLOUDOPS_KEY_SENTINEL_SECRET_IDS: secretIds.join(','),
      CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: s.rs.secretId,
      CLOUDOPS_KEY_EXPIRY_WARN_DAYS: '7',
      CLOUDOPS_LOG_LEVEL: 'silent',
      // The sandbox's own limit is lifted (test harness); the client's would only slow the test.
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
      CLOUDOPS_WATCHDOG_TABLE: s.dynamo.tableName,
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: TOPIC_ARN,
      ...env,
    },
    secretsManager: recording(s.rs.sm, s.valuesRead),
    notify: { sns: topic.client() },
    dynamo: s.dynamo.client,
    now: () => s.rs.sb.clock.now(),
  });
  return () => handler({}, {} as Context);
}

/** What the topic took since the last call, as notices. */
const drain = () => topic.drain<KeyNotice>();
const byCheck = (notices: KeyNotice[], keyName: string) =>
  notices
    .filter((n) => n.keyName === keyName)
    .map((n) => `${n.kind}:${n.check}`)
    .sort();

describe('key sentinel (the deployed handler)', () => {
  it('tells each new finding once, stays quiet while nothing changes, tells once when one is resolved', async () => {
    const s = await setup();
    await s.rs.rotate(); // the secret now names its key (tags) and the seed key retires
    const unused = await idleKey(s.rs, 'ci-reporting', 120);
    const check = sentinel(s, [s.rs.secretId]);

    const first = await check();
    expect(first.warnings).toEqual([]);
    const told = drain();
    expect(byCheck(told, 'ci-reporting')).toEqual([
      'finding:created-outside-rotation',
      'finding:no-ip-access-list',
      'finding:unused',
    ]);
    const unusedNotice = told.find((n) => n.check === 'unused')!;
    expect(unusedNotice).toMatchObject({
      subject: 'key',
      level: 'medium',
      severity: 'warning',
      dedupKey: `key/unused/${unused}`,
      resolves: false,
      action: `revoke it: cloudops keys revoke ${unused}`,
    });
    // One entry per notice, with the subject line and attributes subscriptions filter on.
    const published = topic.entries();
    expect(published).toHaveLength(told.length);
    expect(published.find((p) => p.Subject?.includes('unused'))).toMatchObject({
      Subject: `[WARNING] API key unused medium: ci-reporting (...${unusedNotice.keySuffix})`,
      MessageAttributes: expect.objectContaining({
        subject: { DataType: 'String', StringValue: 'key' },
        check: { DataType: 'String', StringValue: 'unused' },
      }) as object,
    });

    await check();
    expect(drain()).toEqual([]);

    // The unused key is deleted: its findings are resolved, once.
    const seed = await s.rs.read('AWSCURRENT');
    const api = createManagementClient({
      baseUrl: s.rs.sb.info.apiUrl,
      credentials: staticCredentials('current', seed, managementKeySecret),
      rateLimit: false,
    });
    await api.deleteKey(unused);
    api.close();
    await check();
    const resolved = drain();
    expect(byCheck(resolved, 'ci-reporting')).toEqual([
      'resolved:created-outside-rotation',
      'resolved:no-ip-access-list',
      'resolved:unused',
    ]);
    expect(resolved.every((n) => n.resolves && n.severity === 'info')).toBe(true);
    await check();
    expect(drain()).toEqual([]);
  });

  it('reminds high and medium findings after the reminder days; low ones are told once', async () => {
    const s = await setup();
    await s.rs.rotate();
    await idleKey(s.rs, 'old-report', 200);
    const check = sentinel(s, [s.rs.secretId], { CLOUDOPS_KEY_AUDIT_REMINDER_DAYS: '3' });
    await check();
    drain();
    s.rs.sb.clock.advance(DAY);
    await check();
    expect(drain().filter((n) => n.keyName === 'old-report')).toEqual([]);
    s.rs.sb.clock.advance(2 * DAY);
    await check();
    expect(byCheck(drain(), 'old-report')).toEqual(['reminder:unused']);
  });

  it('reads no key secret value but its own; the others it knows from their tags', async () => {
    const s = await setup();
    await s.rs.rotate();
    const other = await s.rs.read('AWSCURRENT');
    await s.rs.sm.send(
      new CreateSecretCommand({ Name: 'other-function-key', SecretString: JSON.stringify(other) }),
    );
    const check = sentinel(s, [s.rs.secretId, 'other-function-key']);
    const report = await check();
    expect(new Set(s.valuesRead)).toEqual(new Set([s.rs.secretId]));
    // The untagged one holds only its first value: not configured yet, not a finding.
    expect(report.findings.filter((f) => f.secretId?.includes('other-function-key'))).toEqual([]);
  });

  it("without its own key it audits the secrets' tags: a key of ours close to expiry is critical", async () => {
    const s = await setup();
    await s.rs.rotate();
    const check = sentinel(s, [s.rs.secretId], { CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: '' });
    const fresh = await check();
    expect(fresh.warnings).toEqual([
      "the sentinel has no key of its own to list keys with: only our key secrets' tags were checked",
    ]);
    expect(drain()).toEqual([]);
    expect(s.valuesRead).toEqual([]);

    s.rs.sb.clock.advance(24 * DAY); // 30-day keys: rotation is overdue, 6 days left
    await check();
    const [overdue] = drain();
    expect(overdue).toMatchObject({
      check: 'rotation-overdue',
      level: 'high',
      severity: 'critical',
      secretId: expect.stringContaining('cloudops/sandbox/management-key') as string,
    });
    expect(overdue.message).toMatch(/holds key …\w{4}, which expires \S+Z/);
  });

  it("with its own key refused (401) it audits the secrets' tags and says why, in one key list", async () => {
    const s = await setup();
    await s.rs.rotate();
    const refused = {
      organizationId: s.rs.sb.info.organizationId,
      keyId: 'REFUSEDKEY00',
      keySecret: 'not-a-key-the-service-knows',
      expireAt: null,
    };
    await s.rs.sm.send(
      new CreateSecretCommand({ Name: 'old/sentinel-key', SecretString: JSON.stringify(refused) }),
    );
    const before = s.rs.sb.requestLog.entries().length;
    const check = sentinel(s, [s.rs.secretId], {
      CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: 'old/sentinel-key',
    });
    const report = await check();
    expect(report.warnings).toEqual([
      "the service refuses the sentinel's own key (401): only our key secrets' tags were checked",
    ]);
    const management = s.rs.sb.requestLog
      .entries()
      .slice(before)
      .filter((e) => e.surface === 'management');
    expect(management.map((e) => `${e.method} ${e.status}`)).toEqual(['GET 401']);
  });

  it('a notice no notifier took fails the invocation, and the next run delivers it once', async () => {
    const s = await setup();
    await s.rs.rotate();
    await idleKey(s.rs, 'stale', 100);
    topic.refuse('topic unavailable');
    const failing = sentinel(s, [s.rs.secretId]);
    await expect(failing()).rejects.toThrow(
      /key audit notice not delivered .*sns: .*topic unavailable/,
    );
    drain();
    topic.accept();
    const check = sentinel(s, [s.rs.secretId]);
    await check();
    const delivered = drain();
    expect(byCheck(delivered, 'stale')).toContain('finding:unused');
    const ids = delivered.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    await check();
    expect(drain()).toEqual([]);
  });

  it('a fresh deployment (every key secret still its placeholder) tells nothing, in one info line', async () => {
    const s = await setup();
    const placeholder = JSON.stringify({
      ...(JSON.parse(NOT_CONFIGURED_TEMPLATE) as object),
      placeholder: 'abc123',
    });
    for (const Name of ['fresh/watchdog-key', 'fresh/sentinel-key'])
      await s.rs.sm.send(new CreateSecretCommand({ Name, SecretString: placeholder }));
    const lines: { level: string; message: string }[] = [];
    const logger = createLogger({
      sink: (line) => lines.push(JSON.parse(line) as { level: string; message: string }),
    });
    const check = sentinel(
      s,
      ['fresh/watchdog-key', 'fresh/sentinel-key'],
      { CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: 'fresh/sentinel-key' },
      logger,
    );
    for (let run = 0; run < 2; run++) {
      const report = await check();
      expect(report.findings).toEqual([]);
      expect(report.warnings).toEqual([]);
    }
    expect(drain()).toEqual([]);
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      [
        'info',
        "not configured yet: the sentinel's own key; only our key secrets' tags were checked",
      ],
    ]);
  });
});
