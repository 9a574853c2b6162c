/**
 * SNS PublishBatch and EventBridge PutEvents as the services document them: ≤ 10 entries a
 * call, per-entry results in a 200 answer (SNS: Successful / Failed by Id; EventBridge: Entries
 * by position plus FailedEntryCount), mapped back to the notification each entry carried.
 */
import 'aws-sdk-client-mock-vitest/extend';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  InvalidParameterException,
  PublishBatchCommand,
  PublishCommand,
  SNSClient,
  ThrottledException,
  type PublishBatchCommandInput,
  type PublishBatchCommandOutput,
} from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chunks } from '../../../lib/batches';
import { createEventBridgeNotifier } from '../../../lib/watch/notifiers/eventbridge';
import { createSnsNotifier } from '../../../lib/watch/notifiers/sns';
import type { PipeNotice } from '../../../lib/watch/subjects/pipe';
import { renderAny } from '../../support/notices';

const note = (i: number): PipeNotice => ({
  subject: 'pipe',
  id: `org/svc/pipe-${i}/transition/1`,
  dedupKey: `pipe/org/svc/pipe-${i}/health`,
  resolves: false,
  kind: 'transition',
  severity: i % 2 ? 'critical' : 'warning',
  organizationId: 'org-1',
  serviceId: 'svc-1',
  pipeId: `pipe-${i}`,
  pipeName: `orders-${i}`,
  from: 'Running',
  to: 'Failed',
  at: '2025-01-01T00:05:00.000Z',
  since: '2025-01-01T00:05:00.000Z',
  message: `Pipe orders-${i} went from Running to Failed`,
});
const twelve = Array.from({ length: 12 }, (_, i) => note(i));

const sns = mockClient(SNSClient);
const eb = mockClient(EventBridgeClient);
afterEach(() => {
  sns.reset();
  eb.reset();
});
afterAll(() => {
  sns.restore();
  eb.restore();
});
const snsNotifier = () =>
  createSnsNotifier({
    render: renderAny,
    client: new SNSClient({ region: 'us-east-1' }),
    topicArn: 'arn:topic',
  });
const ebNotifier = () =>
  createEventBridgeNotifier({
    render: renderAny,
    client: new EventBridgeClient({ region: 'us-east-1' }),
  });

/** SNS's answer: every entry successful except those whose body names a failing pipe. */
function snsAnswer(failPipes: string[] = []) {
  return (input: PublishBatchCommandInput): PublishBatchCommandOutput => {
    const entries = input.PublishBatchRequestEntries ?? [];
    const fails = (m: string) => failPipes.includes((JSON.parse(m) as PipeNotice).pipeId);
    return {
      $metadata: {},
      Successful: entries
        .filter((e) => !fails(e.Message!))
        .map((e) => ({ Id: e.Id, MessageId: `msg-${e.Id}` })),
      Failed: entries
        .filter((e) => fails(e.Message!))
        .map((e) => ({
          Id: e.Id!,
          Code: 'InternalError',
          Message: 'try again',
          SenderFault: false,
        })),
    };
  };
}

describe('sns PublishBatch', () => {
  it('12 notifications: 2 calls (10 + 2), each entry with its own subject, body and attributes', async () => {
    sns.on(PublishBatchCommand).callsFake(snsAnswer());
    const results = await snsNotifier().sendBatch!(twelve);
    expect(results).toEqual(twelve.map(() => undefined));
    expect(sns).toHaveReceivedCommandTimes(PublishBatchCommand, 2);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 0);
    const calls = sns.commandCalls(PublishBatchCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.PublishBatchRequestEntries!.length)).toEqual([10, 2]);
    for (const call of calls) {
      const ids = call.PublishBatchRequestEntries!.map((e) => e.Id!);
      expect(new Set(ids).size).toBe(ids.length); // unique within the request
      for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
      expect(call.TopicArn).toBe('arn:topic');
    }
    const entries = calls.flatMap((c) => c.PublishBatchRequestEntries!);
    // The notice, and the first thing to check (a Failed pipe's).
    expect(entries.map((e) => JSON.parse(e.Message!) as PipeNotice)).toEqual(
      twelve.map((t) => ({ ...t, hint: expect.stringContaining('source credentials') as string })),
    );
    expect(entries[3]).toMatchObject({
      Subject: '[CRITICAL] pipe orders-3 transition: Running -> Failed',
      MessageAttributes: {
        severity: { DataType: 'String', StringValue: 'critical' },
        kind: { DataType: 'String', StringValue: 'transition' },
        pipeId: { DataType: 'String', StringValue: 'pipe-3' },
      },
    });
    expect(entries[4].Subject).toBe('[WARNING] pipe orders-4 transition: Running -> Failed');
  });

  it('a Failed entry fails only its notification, found by Id', async () => {
    sns.on(PublishBatchCommand).callsFake(snsAnswer(['pipe-7', 'pipe-11']));
    const results = await snsNotifier().sendBatch!(twelve);
    const failed = results.flatMap((r, i) => (r ? [i] : []));
    expect(failed).toEqual([7, 11]);
    expect(results[7]?.message).toBe('sns: entry rejected: InternalError: try again');
  });

  it('an entry missing from both lists is not taken as delivered', async () => {
    sns.on(PublishBatchCommand).resolves({ Successful: [{ Id: 'm0', MessageId: 'x' }] });
    const results = await snsNotifier().sendBatch!(twelve.slice(0, 2));
    expect(results[0]).toBeUndefined();
    expect(results[1]?.message).toMatch(/no result/);
  });

  it('a failed call fails its own entries only (other chunks still go)', async () => {
    sns
      .on(PublishBatchCommand)
      .rejectsOnce(new ThrottledException({ message: 'Rate exceeded', $metadata: {} }))
      .callsFake(snsAnswer());
    const results = await snsNotifier().sendBatch!(twelve);
    expect(
      results.slice(0, 10).every((r) => /publish failed: Rate exceeded/.test(r!.message)),
    ).toBe(true);
    expect(results.slice(10)).toEqual([undefined, undefined]);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 0); // throttling is not retried singly
  });

  it('a batch refused as invalid is retried one by one, so one bad entry cannot block the rest', async () => {
    sns
      .on(PublishBatchCommand)
      .rejects(new InvalidParameterException({ message: 'Invalid parameter', $metadata: {} }));
    sns.on(PublishCommand).callsFake((input: { Message: string }) => {
      if (input.Message.includes('"pipe-1"')) throw new Error('Invalid parameter: Message');
      return { MessageId: 'x' };
    });
    const results = await snsNotifier().sendBatch!(twelve.slice(0, 3));
    expect(results.map((r) => r !== undefined)).toEqual([false, true, false]);
  });

  it('drops an empty attribute value (SNS refuses it)', async () => {
    sns.on(PublishBatchCommand).callsFake(snsAnswer());
    const withoutPipe: PipeNotice = { ...note(0), pipeId: '' };
    await snsNotifier().sendBatch!([withoutPipe]);
    const [entry] =
      sns.commandCalls(PublishBatchCommand)[0].args[0].input.PublishBatchRequestEntries!;
    expect(Object.keys(entry.MessageAttributes!).sort()).toEqual([
      'kind',
      'serviceId',
      'severity',
      'subject',
    ]);
  });
});

describe('eventbridge PutEvents batch', () => {
  it('12 notifications: 2 calls (10 + 2) with the events in order', async () => {
    eb.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ({
      FailedEntryCount: 0,
      Entries: input.Entries.map((_, i) => ({ EventId: `e${i}` })),
    }));
    const results = await ebNotifier().sendBatch!(twelve);
    expect(results).toEqual(twelve.map(() => undefined));
    const calls = eb.commandCalls(PutEventsCommand).map((c) => c.args[0].input.Entries!);
    expect(calls.map((c) => c.length)).toEqual([10, 2]);
    expect(calls.flat().map((e) => (JSON.parse(e.Detail!) as { pipeId: string }).pipeId)).toEqual(
      twelve.map((x) => x.pipeId),
    );
  });

  it('FailedEntryCount 1 with an ErrorCode at one position fails that notification only', async () => {
    eb.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ({
      FailedEntryCount: 1,
      Entries: input.Entries.map((_, i) =>
        i === 4
          ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' }
          : { EventId: `e${i}` },
      ),
    }));
    const results = await ebNotifier().sendBatch!(twelve.slice(0, 6));
    expect(results.map((r) => r?.message)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      'eventbridge: event rejected: ThrottlingException: slow down',
      undefined,
    ]);
  });

  it('a short Entries list leaves the unanswered entries undelivered', async () => {
    eb.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e0' }] });
    const results = await ebNotifier().sendBatch!(twelve.slice(0, 2));
    expect(results[0]).toBeUndefined();
    expect(results[1]?.message).toMatch(/no result/);
  });
});

describe('chunks', () => {
  it('splits by count and by summed size; an oversized item goes alone', () => {
    const sizes = [1, 1, 1, 5, 1, 1];
    expect(chunks(sizes, 2, 100, (x) => x)).toEqual([
      [1, 1],
      [1, 5],
      [1, 1],
    ]);
    expect(chunks(sizes, 10, 3, (x) => x)).toEqual([[1, 1, 1], [5], [1, 1]]);
    expect(chunks([], 10, 3, (x: number) => x)).toEqual([]);
  });
});
