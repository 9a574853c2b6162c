import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { putEvents } from '../../lib/events/put-events';

const eb = mockClient(EventBridgeClient);
afterEach(() => eb.reset());
const client = new EventBridgeClient({ region: 'us-east-1' });

const entry = (id: number, detailBytes = 10) => ({
  Source: 'cloudops',
  DetailType: 'Test',
  Detail: JSON.stringify({ id, pad: 'x'.repeat(detailBytes) }),
});
const idsOf = (call: number) =>
  (eb.commandCalls(PutEventsCommand)[call].args[0].input.Entries ?? []).map(
    (e) => (JSON.parse(e.Detail!) as { id: number }).id,
  );
/** Accepts every entry except those whose id is in `refuse`. */
const answer = (refuse: Set<number>) => (input: { Entries: { Detail?: string }[] }) => {
  const entries = input.Entries.map((e) =>
    refuse.has((JSON.parse(e.Detail!) as { id: number }).id)
      ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'slow down' }
      : { EventId: 'e' },
  );
  return { FailedEntryCount: entries.filter((e) => 'ErrorCode' in e).length, Entries: entries };
};

describe('putEvents', () => {
  it('sends 10 entries a call and at most 256 KB a call, in order', async () => {
    eb.on(PutEventsCommand).callsFake(answer(new Set()));
    const big = Array.from({ length: 3 }, (_, i) => entry(i, 100_000));
    const small = Array.from({ length: 11 }, (_, i) => entry(3 + i));
    const results = await putEvents(client, [...big, ...small]);
    expect(results).toEqual(Array(14).fill(undefined));
    expect(eb.commandCalls(PutEventsCommand).map((_, i) => idsOf(i))).toEqual([
      [0, 1],
      [2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      [12, 13],
    ]);
  });

  it('resends only the refused entries, and reports those still refused at their position', async () => {
    eb.on(PutEventsCommand).callsFake(answer(new Set([1, 3])));
    eb.on(PutEventsCommand)
      .callsFakeOnce(answer(new Set([1, 3])))
      .callsFake(answer(new Set([3])));
    const results = await putEvents(
      client,
      [0, 1, 2, 3].map((i) => entry(i)),
      { attempts: 2 },
    );
    expect(idsOf(1)).toEqual([1, 3]);
    expect(eb.commandCalls(PutEventsCommand)).toHaveLength(2);
    expect(results).toEqual([
      undefined,
      undefined,
      undefined,
      { kind: 'rejected', code: 'ThrottlingException', message: 'slow down' },
    ]);
  });

  it('an entry the answer leaves out is unanswered, even when FailedEntryCount is 0', async () => {
    eb.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e' }] });
    expect(await putEvents(client, [entry(0), entry(1)])).toEqual([
      undefined,
      { kind: 'unanswered' },
    ]);
  });

  it('a failed call rejects before later chunks, or refuses its entries and goes on', async () => {
    const denied = Object.assign(new Error('denied'), { name: 'AccessDeniedException' });
    const entries = Array.from({ length: 12 }, (_, i) => entry(i));
    eb.on(PutEventsCommand).rejectsOnce(denied).callsFake(answer(new Set()));
    await expect(putEvents(client, entries)).rejects.toThrow('denied');
    expect(eb.commandCalls(PutEventsCommand)).toHaveLength(1);

    eb.reset();
    eb.on(PutEventsCommand).rejectsOnce(denied).callsFake(answer(new Set()));
    const results = await putEvents(client, entries, { refuseOnCallFailure: true });
    expect(eb.commandCalls(PutEventsCommand)).toHaveLength(2);
    expect(results.slice(0, 10).every((r) => r?.kind === 'call-failed')).toBe(true);
    expect(results.slice(10)).toEqual([undefined, undefined]);
  });
});
