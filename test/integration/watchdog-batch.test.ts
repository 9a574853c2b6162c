/**
 * Batched delivery through the real watchdog (sandbox over HTTP): one run's notifications go
 * to SNS in PublishBatch calls and to EventBridge in PutEvents calls of ≤ 10 entries (AWS
 * modelled with aws-sdk-client-mock as documented), the webhook gets one POST each, and an
 * entry that failed is re-sent next run to that notifier only.
 */
import 'aws-sdk-client-mock-vitest/extend';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  PublishBatchCommand,
  PublishCommand,
  SNSClient,
  type PublishBatchCommandInput,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementClient } from '../../lib/api';
import { runWatchdog } from '../../lib/pipes/watchdog';
import { parseWatchdogConfig } from '../../lib/pipes/watchdog-config';
import { configuredNotifiers, notifierEnv } from '../../lib/watch/notifiers/registry';
import { createNotifiers } from '../../lib/watch/notifiers/set';
import { LocalWatchStore } from '../../lib/watch/local-store';
import type { Sandbox } from '../../sandbox/index';
import { startReceiver } from '../support/receiver';
import { clientFor, pipeOf, startWatchdogSandbox } from './watchdog-helpers';
import { renderAny } from '../support/notices';

const sns = mockClient(SNSClient);
const eb = mockClient(EventBridgeClient);
let sb: Sandbox;
let client: ManagementClient;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** Twelve failed pipes of their own, so a first run announces twelve new pipes. */
let pipeIds: string[];

beforeAll(async () => {
  sb = await startWatchdogSandbox();
  client = clientFor(sb);
  receiver = await startReceiver();
  const template = sb.store.state.pipes.find((p) => p.serviceId === sb.info.serviceId)!;
  pipeIds = Array.from({ length: 12 }, () => randomUUID());
  sb.store.state.pipes.push(
    // Failed: a first run (a silent baseline for healthy pipes) reports each of them.
    ...pipeIds.map((id, i) => ({
      ...structuredClone(template),
      id,
      name: `batch-${i}`,
      state: 'Failed',
    })),
  );
});
afterAll(async () => {
  sns.restore();
  eb.restore();
  client.close();
  await receiver.close();
  await sb.close();
});
afterEach(() => {
  sns.reset();
  eb.reset();
  receiver.received.length = 0;
});

/** The pipe an SNS message body or an event detail is about. */
const pipeIn = (json: string) => (JSON.parse(json) as { pipeId: string }).pipeId;

/** SNS's documented answer: Successful and Failed by Id (here: entries for `failPipes` fail). */
function publishBatch(failPipes: string[]) {
  sns.on(PublishBatchCommand).callsFake((input: PublishBatchCommandInput) => {
    const entries = input.PublishBatchRequestEntries ?? [];
    const fails = (e: (typeof entries)[number]) => failPipes.includes(pipeIn(e.Message!));
    return {
      Successful: entries.filter((e) => !fails(e)).map((e) => ({ Id: e.Id, MessageId: 'm' })),
      Failed: entries
        .filter(fails)
        .map((e) => ({ Id: e.Id, Code: 'InternalError', Message: 'retry', SenderFault: false })),
    };
  });
}

/** EventBridge's: Entries by request position, an ErrorCode where `failPipes` are. */
function putEvents(failPipes: string[]) {
  eb.on(PutEventsCommand).callsFake((input: { Entries: { Detail: string }[] }) => {
    const entries = input.Entries.map((e) =>
      failPipes.includes(pipeIn(e.Detail))
        ? { ErrorCode: 'InternalFailure', ErrorMessage: 'retry' }
        : { EventId: randomUUID() },
    );
    return { FailedEntryCount: entries.filter((e) => 'ErrorCode' in e).length, Entries: entries };
  });
}

const batches = () =>
  sns
    .commandCalls(PublishBatchCommand)
    .map((c) => c.args[0].input.PublishBatchRequestEntries!.map((e) => pipeIn(e.Message!)));
const events = () =>
  eb
    .commandCalls(PutEventsCommand)
    .map((c) => c.args[0].input.Entries!.map((e) => pipeIn(e.Detail!)));

describe('batched notifications', () => {
  it('12 notifications: 2 PublishBatch + 2 PutEvents; a failed entry is re-sent next run to its notifier only', async () => {
    const notifiers = createNotifiers(
      configuredNotifiers(
        notifierEnv.parse({
          CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: 'arn:aws:sns:us-east-1:1:t',
          CLOUDOPS_WATCHDOG_EVENT_BUS: 'bus',
          CLOUDOPS_WATCHDOG_WEBHOOK_URL: receiver.url,
        }),
        renderAny,
      ),
      {
        sns: new SNSClient({ region: 'us-east-1' }),
        eventBridge: new EventBridgeClient({ region: 'us-east-1' }),
      },
    );
    const store = new LocalWatchStore();
    const config = parseWatchdogConfig({
      organizationId: sb.info.organizationId,
      serviceIds: [sb.info.serviceId],
      includePipes: pipeIds,
    });
    const run = () =>
      runWatchdog(config, { api: client, store, notifiers, now: () => sb.clock.now() });
    const [snsFails, ebFails] = [pipeIds[3], pipeIds[11]];
    publishBatch([snsFails]);
    putEvents([ebFails]);

    const first = await run();
    expect(first.notifications).toHaveLength(12);
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 2);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 0);
    expect(eb).toHaveReceivedCommandTimes(PutEventsCommand, 2);
    expect(batches().map((b) => b.length)).toEqual([10, 2]);
    expect(events().map((b) => b.length)).toEqual([10, 2]);
    expect(new Set(batches().flat())).toEqual(new Set(pipeIds));
    expect(receiver.received).toHaveLength(12); // people read webhooks one by one
    expect(first.errors.map((e) => [e.stage, e.notifier, e.pipeId])).toEqual(
      expect.arrayContaining([
        ['notify', 'sns', snsFails],
        ['notify', 'eventbridge', ebFails],
      ]),
    );
    expect(first.errors).toHaveLength(2);
    expect(first.metrics.notifyErrors).toBe(2);

    // Next run, nothing changed: each failed entry goes again, to its notifier only.
    sns.reset();
    eb.reset();
    receiver.received.length = 0;
    publishBatch([]);
    putEvents([]);
    sb.clock.advance(60_000);
    const second = await run();
    expect(batches()).toEqual([[snsFails]]);
    expect(events()).toEqual([[ebFails]]);
    expect(receiver.received).toHaveLength(0);
    expect(second.errors).toEqual([]);
    expect(second.notifications.map(pipeOf).sort()).toEqual([snsFails, ebFails].sort());

    // Then everything is settled: nothing more goes out.
    sns.reset();
    eb.reset();
    sb.clock.advance(60_000);
    const third = await run();
    expect(third.notifications).toEqual([]);
    expect(sns.calls()).toHaveLength(0);
    expect(eb.calls()).toHaveLength(0);
  });

  it('a whole PublishBatch call failing keeps its entries pending; the other notifiers are settled', async () => {
    const notifiers = createNotifiers(
      configuredNotifiers(
        notifierEnv.parse({
          CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: 'arn:aws:sns:us-east-1:1:t',
          CLOUDOPS_WATCHDOG_EVENT_BUS: 'bus',
        }),
        renderAny,
      ),
      {
        sns: new SNSClient({ region: 'us-east-1' }),
        eventBridge: new EventBridgeClient({ region: 'us-east-1' }),
      },
    );
    const store = new LocalWatchStore();
    const config = parseWatchdogConfig({
      organizationId: sb.info.organizationId,
      serviceIds: [sb.info.serviceId],
      includePipes: pipeIds.slice(0, 3),
    });
    const run = () =>
      runWatchdog(config, { api: client, store, notifiers, now: () => sb.clock.now() });
    sns.on(PublishBatchCommand).rejects(new Error('connect ECONNREFUSED'));
    putEvents([]);
    const first = await run();
    expect(first.errors.filter((e) => e.notifier === 'sns')).toHaveLength(3);
    expect(events().flat()).toHaveLength(3);

    sns.reset();
    eb.reset();
    publishBatch([]);
    sb.clock.advance(60_000);
    await run();
    expect(batches().map((b) => b.sort())).toEqual([pipeIds.slice(0, 3).sort()]);
    expect(eb.calls()).toHaveLength(0);
  });
});
