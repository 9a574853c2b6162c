/**
 * Progress through the deployed functions: the schedule enqueues, the consumer reads each
 * service's metrics over HTTP from the sandbox, records in dynalite, notices to a webhook on
 * loopback. The progress settings come from the functions' env, as the stack sets them.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import { createConsumerHandler } from '../../functions/pipe-watchdog/consumer';
import { createHandler } from '../../functions/pipe-watchdog/handler';
import type { PipeNotice } from '../../lib/watch/subjects/pipe';
import type { Sandbox } from '../../sandbox/index';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import { startReceiver } from '../support/receiver';
import { admin } from '../support/sandbox-http';
import { startWatchdogSandbox } from './watchdog-helpers';

const MIN = 60_000;
const sqs = mockClient(SQSClient);
let sb: Sandbox;
let dynamo: LocalDynamo;
let hook: Awaited<ReturnType<typeof startReceiver>>;
let kafka: string;
let queued: string[] = [];

beforeAll(async () => {
  sb = await startWatchdogSandbox();
  dynamo = await startLocalDynamo();
  hook = await startReceiver();
  kafka = sb.info.pipeIds[0];
  sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: { MessageBody: string }[] }) => {
    queued.push(...input.Entries.map((e) => e.MessageBody));
    return { Successful: input.Entries.map((_, i) => ({ Id: `m${i}` })), Failed: [] };
  });
});
afterAll(async () => {
  sqs.restore();
  await hook.close();
  await dynamo.close();
  await sb.close();
});

function deployed() {
  const env = {
    ...sandboxEnv(sb.info),
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
    CLOUDOPS_LOG_LEVEL: 'silent',
    CLOUDOPS_WATCHDOG_TABLE: dynamo.tableName,
    CLOUDOPS_WATCHDOG_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/watchdog',
    CLOUDOPS_WATCHDOG_WEBHOOK_URL: `${hook.url}/hooks/progress`,
    CLOUDOPS_WATCHDOG_INCLUDE_PIPES: kafka,
    // Not the default 30: the threshold reaches the decision from the function's env.
    CLOUDOPS_WATCHDOG_STALL_MINUTES: '15',
    CLOUDOPS_WATCHDOG_ERRORS_PER_RUN: '100',
  };
  const o = {
    env,
    dynamo: dynamo.client,
    sqs: new SQSClient({ region: 'us-east-1' }),
    metricsSink: () => {},
    now: () => sb.clock.now(),
  };
  const schedule = createHandler(o);
  const consume = createConsumerHandler(o);
  /** One scheduled run: enqueue, then drain the queue through the consumer. */
  return async () => {
    queued = [];
    await schedule({}, {} as Context);
    const records = queued.map((body, i) => ({ messageId: `msg-${i}`, body }));
    const out = await consume({ Records: records }, {} as Context);
    expect(out.batchItemFailures).toEqual([]);
  };
}

const told = () =>
  hook.received.map((r) => (JSON.parse(r.body) as { notification: PipeNotice }).notification);

describe('the deployed watchdog reads progress', () => {
  it('a stall past CLOUDOPS_WATCHDOG_STALL_MINUTES is told once, critical; errors under CLOUDOPS_WATCHDOG_ERRORS_PER_RUN are not; restored, one recovery', async () => {
    const run = deployed();
    await admin(sb, 'PUT', `/pipes/${kafka}/flow`, {
      fetchedPerMinute: 100,
      sentPerMinute: 0,
      errorsPerMinute: 10, // 50 a run: under the limit of 100
    });
    try {
      sb.requestLog.clear();
      let runs = 0;
      for (let minutes = 0; minutes <= 25; minutes += 5) {
        if (minutes > 0) sb.clock.advance(5 * MIN);
        await run();
        runs += 1;
      }
      // One metrics read per service per run, and nothing else.
      const management = sb.requestLog.entries().filter((e) => e.surface === 'management');
      expect(management).toHaveLength(runs * sb.info.serviceIds.length);
      expect(management.every((e) => e.path.endsWith('/prometheus'))).toBe(true);
      const notices = told().filter((n) => n.pipeId === kafka);
      expect(notices.map((n) => `${n.kind}:${n.severity}`)).toEqual(['stalled:critical']);
      expect(notices[0]).toMatchObject({
        condition: 'progress',
        sourceKind: 'kafka',
        progress: { metric: 'ClickPipes_SentEvents_Total', ratePerMinute: 0 },
      });
      expect(notices[0].progress?.readings).toHaveLength(2);
    } finally {
      await admin(sb, 'DELETE', `/pipes/${kafka}/flow`);
    }
    sb.clock.advance(5 * MIN);
    await run();
    const notices = told().filter((n) => n.pipeId === kafka);
    expect(notices.map((n) => n.kind)).toEqual(['stalled', 'recovery']);
    expect(notices[1]).toMatchObject({ dedupKey: notices[0].dedupKey, resolves: true });
  });
});
