/**
 * The two pipe-watchdog handlers with a queue, as deployed: the schedule only enqueues (no API
 * request), the consumer checks each message's services over HTTP against the sandbox, state
 * in dynalite, notices to a webhook on loopback. SQS itself is mocked at the SDK.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import { createConsumerHandler } from '../../functions/pipe-watchdog/consumer';
import { createHandler } from '../../functions/pipe-watchdog/handler';
import type { Sandbox } from '../../sandbox/index';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import { startReceiver } from '../support/receiver';
import { startWatchdogSandbox } from './watchdog-helpers';

const sqs = mockClient(SQSClient);
let sb: Sandbox;
let dynamo: LocalDynamo;
let hook: Awaited<ReturnType<typeof startReceiver>>;
let queued: string[];

beforeAll(async () => {
  sb = await startWatchdogSandbox();
  dynamo = await startLocalDynamo();
  hook = await startReceiver();
});
afterAll(async () => {
  sqs.restore();
  await hook.close();
  await dynamo.close();
  await sb.close();
});
beforeEach(() => {
  queued = [];
  sqs.reset();
  sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: { MessageBody: string }[] }) => {
    queued.push(...input.Entries.map((e) => e.MessageBody));
    return { Successful: input.Entries.map((_, i) => ({ Id: `m${i}` })), Failed: [] };
  });
});

const options = (extra: Record<string, string> = {}) => ({
  env: {
    ...sandboxEnv(sb.info),
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
    CLOUDOPS_LOG_LEVEL: 'silent',
    CLOUDOPS_WATCHDOG_TABLE: dynamo.tableName,
    CLOUDOPS_WATCHDOG_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/watchdog',
    CLOUDOPS_WATCHDOG_SERVICES_PER_MESSAGE: '1',
    CLOUDOPS_WATCHDOG_WEBHOOK_URL: `${hook.url}/hooks/fanout`,
    ...extra,
  },
  dynamo: dynamo.client,
  sqs: new SQSClient({ region: 'us-east-1' }),
  metricsSink: () => {},
});
const management = () => sb.requestLog.entries().filter((e) => e.surface === 'management');
const records = (bodies: string[]) => bodies.map((body, i) => ({ messageId: `msg-${i}`, body }));
const context = {} as Context;

describe('pipe watchdog with a queue: the schedule enqueues, the consumer checks', () => {
  it('the schedule sends one message per service batch and makes no API request', async () => {
    sb.requestLog.clear();
    const summary = await createHandler(options())({}, context);
    const services = sb.info.serviceIds.length;
    expect(summary.enqueued).toMatchObject({ messages: services, services });
    expect(queued.map((b) => (JSON.parse(b) as { serviceIds: string[] }).serviceIds)).toEqual(
      sb.info.serviceIds.map((id) => [id]),
    );
    expect(management()).toEqual([]);
  });

  it('the consumer checks each message once, reports a bad one, skips a redelivered one', async () => {
    await createHandler(options())({}, context);
    const messages = records(queued);
    const consume = createConsumerHandler(options());
    sb.requestLog.clear();
    const first = await consume(
      { Records: [...messages, { messageId: 'bad', body: '{' }] },
      context,
    );
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
    // One metrics read per service.
    expect(management().map((e) => e.method)).toEqual(sb.info.serviceIds.map(() => 'GET'));
    const told = hook.received.length;
    expect(told).toBeGreaterThan(0); // the pipes already in trouble, told on the first run

    sb.requestLog.clear();
    const again = await consume({ Records: messages }, context);
    expect(again.batchItemFailures).toEqual([]);
    expect(management()).toEqual([]); // the same run's services are done
    expect(hook.received).toHaveLength(told);
  });

  it('past its deadline the consumer leaves every message for SQS, untouched', async () => {
    await createHandler(options())({}, context);
    const stopped = new AbortController();
    stopped.abort();
    const consume = createConsumerHandler({
      ...options(),
      deadline: () => ({ signal: stopped.signal }),
    });
    sb.requestLog.clear();
    const out = await consume({ Records: records(queued) }, context);
    expect(out.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(
      queued.map((_, i) => `msg-${i}`),
    );
    expect(management()).toEqual([]);
  });

  it('a consumer without a queue fails at once, naming the variable', () => {
    expect(() => createConsumerHandler(options({ CLOUDOPS_WATCHDOG_QUEUE_URL: '' }))).toThrow(
      /CLOUDOPS_WATCHDOG_QUEUE_URL/,
    );
  });
});
