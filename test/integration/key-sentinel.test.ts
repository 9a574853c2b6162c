/**
 * The deployed key-expiry sentinel, through its Lambda handler and its env as the stack sets
 * it: key secrets in the sandbox's Secrets Manager, key records read from the sandbox over
 * HTTP, warnings through lib/watch notifiers (SNS mocked at the SDK, a webhook on loopback).
 */
import { PublishBatchCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSentinelHandler } from '../../functions/rotate-key/sentinel';
import type { ManagementKeySecret } from '../../lib/schemas';
import { closeAfterEach } from '../support/close-after-each';
import { startReceiver } from '../support/receiver';
import { DAY, startRotationSandbox, type RotationSandbox } from './rotation-harness';

const TOPIC = 'arn:aws:sns:us-east-1:000000000000:cloudops-notifications';
const sns = mockClient(SNSClient);
const open = closeAfterEach<RotationSandbox>();
let hook: Awaited<ReturnType<typeof startReceiver>>;

beforeEach(async () => {
  sns.reset();
  sns
    .on(PublishBatchCommand)
    .callsFake((input: { PublishBatchRequestEntries: { Id: string }[] }) => ({
      Successful: input.PublishBatchRequestEntries.map((e) => ({ Id: e.Id, MessageId: e.Id })),
    }));
  hook = await startReceiver();
});
afterEach(() => hook.close());
afterAll(() => sns.restore());

async function sandbox(): Promise<RotationSandbox> {
  const rs = await startRotationSandbox();
  open.push(rs);
  return rs;
}

/**
 * The handler with the env the stack gives it (the API URL, secret ids, warn days, its
 * notifiers); `env` adds or removes ('') variables.
 */
function sentinel(rs: RotationSandbox, env: Record<string, string> = {}) {
  const handler = createSentinelHandler({
    env: {
      CLOUDOPS_API_URL: rs.sb.info.apiUrl,
      CLOUDOPS_KEY_SENTINEL_SECRET_IDS: rs.secretId,
      CLOUDOPS_KEY_EXPIRY_WARN_DAYS: '7',
      CLOUDOPS_LOG_LEVEL: 'silent',
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: TOPIC,
      CLOUDOPS_WATCHDOG_WEBHOOK_URL: `${hook.url}/hooks/key-sentinel`,
      ...env,
    },
    secretsManager: rs.sm,
    notify: { sns: new SNSClient({ region: 'us-east-1' }) },
    now: () => rs.sb.clock.now(),
  });
  return () => handler({}, {} as Context);
}

/** What reached the topic, one entry per message (the SNS notifier publishes in batches). */
const published = () =>
  sns.commandCalls(PublishBatchCommand).flatMap((c) =>
    c.args[0].input.PublishBatchRequestEntries!.map((e) => ({
      TopicArn: c.args[0].input.TopicArn,
      ...e,
    })),
  );
const posted = () =>
  hook.received.map((r) => JSON.parse(r.body) as { type: string; notification: object });
const recordOf = (rs: RotationSandbox, key: ManagementKeySecret) =>
  rs.sb.store.state.keys.find((k) => k.keySuffix === key.keyId.slice(-4))!;

describe('key expiry sentinel (the deployed handler)', () => {
  it('is quiet while the key is fresh; once rotation is stuck it warns through every notifier configured', async () => {
    const rs = await sandbox();
    await rs.rotate();
    const check = sentinel(rs);
    expect(await check()).toMatchObject([{ status: 'ok', source: 'key-record' }]);
    expect(published()).toEqual([]);
    expect(hook.received).toEqual([]);

    rs.sb.clock.advance(24 * DAY); // rotation did not run: 6 days left
    const [stuck] = await check();
    expect(stuck).toMatchObject({ status: 'expiring', source: 'key-record' });
    expect(stuck.message).toMatch(/rotation is stuck/);
    const [sent] = published();
    expect(sent).toMatchObject({
      TopicArn: TOPIC,
      Subject: `[WARNING] API key expiring: ${rs.secretId.split(':secret:')[1]}`,
      MessageAttributes: {
        severity: { DataType: 'String', StringValue: 'warning' },
        kind: { DataType: 'String', StringValue: 'key-expiry' },
        subject: { DataType: 'String', StringValue: 'key' },
        status: { DataType: 'String', StringValue: 'expiring' },
      },
    });
    expect(JSON.parse(sent.Message!)).toMatchObject({ secretId: rs.secretId, status: 'expiring' });
    expect(posted()).toEqual([
      {
        type: 'API Key Expiry Warning',
        notification: expect.objectContaining({
          subject: 'key',
          secretId: rs.secretId,
          severity: 'warning',
          dedupKey: `key/${rs.secretId}/expiry`,
        }) as object,
        hint: `its rotation is stuck: check the rotation function's log, then \`cloudops keys rotate --secret-id ${rs.secretId}\``,
      },
    ]);
    const current = await rs.read('AWSCURRENT');
    const everything = JSON.stringify([published(), hook.received]);
    expect(everything).not.toContain(current.keySecret);

    // Expired: the service refuses the key itself (401), which is the alarm.
    rs.sb.clock.advance(7 * DAY);
    const [expired] = await check();
    expect(expired).toMatchObject({ status: 'expired', source: 'key-record' });
    expect(expired.message).toMatch(/refused by the service \(401\)/);
    expect(published()[1].Subject).toMatch(/^\[CRITICAL\] API key expired: /);
  });

  it('warns about a key that never expires (rotation never ran)', async () => {
    const rs = await sandbox();
    expect((await sentinel(rs)())[0].status).toBe('no-expiry');
    expect(posted().map((p) => (p.notification as { status: string }).status)).toEqual([
      'no-expiry',
    ]);
  });

  it('reads the expiry the service enforces when the key record is shorter than the secret value', async () => {
    const rs = await sandbox();
    await rs.rotate();
    const current = await rs.read('AWSCURRENT');
    const check = sentinel(rs);
    const [fresh] = await check();
    expect(fresh).toMatchObject({ status: 'ok', expireAt: recordOf(rs, current).expireAt });

    // The key was cut on the service (a stuck finishSecret, or an operator): the value still says 30 days.
    recordOf(rs, current).expireAt = new Date(rs.sb.clock.now() + 2 * DAY).toISOString();
    const [cut] = await check();
    expect(cut.status).toBe('expiring');
    expect(cut.expireAt).toBe(recordOf(rs, current).expireAt);
    expect(current.expireAt).not.toBe(cut.expireAt);
  });

  it('without the API URL it reads the secret value; it notifies only through the notifiers configured', async () => {
    const rs = await sandbox();
    const check = sentinel(rs, { CLOUDOPS_API_URL: '', CLOUDOPS_WATCHDOG_WEBHOOK_URL: '' });
    expect(await check()).toMatchObject([{ status: 'no-expiry', source: 'secret-value' }]);
    expect(published()).toHaveLength(1);
    expect(hook.received).toEqual([]);
  });

  it('a warning no notifier took fails the invocation (the schedule retries it), naming the notifier', async () => {
    const rs = await sandbox();
    const refusing = await startReceiver([500, 500, 500]);
    try {
      const check = sentinel(rs, { CLOUDOPS_WATCHDOG_WEBHOOK_URL: `${refusing.url}/hooks/down` });
      await expect(check()).rejects.toThrow(/key-expiry warning not delivered: webhook: .*500/);
      expect(published()).toHaveLength(1); // SNS took it all the same
    } finally {
      await refusing.close();
    }
  });
});
