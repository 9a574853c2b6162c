import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboardSyncedEvents } from '../../../lib/dashboards/events';
import { publishEvents } from '../../../lib/dashboards/publish';

const eb = mockClient(EventBridgeClient);
afterEach(() => eb.reset());

const events = (count: number) =>
  dashboardSyncedEvents(
    Array.from({ length: count }, (_, i) => ({
      action: 'create' as const,
      status: 'created' as const,
      key: `dash-${i}`,
      id: `id-${i}`,
      name: `Dashboard ${i}`,
      sourceFile: `dash-${i}.yaml`,
      tiles: [],
      alerts: [],
    })),
    new Date('2026-01-02T03:04:05Z'),
  );

const keysOf = (call: number) => {
  const entries = eb.commandCalls(PutEventsCommand)[call].args[0].input.Entries ?? [];
  return entries.map((e) => (JSON.parse(e.Detail!) as { dashboardKey: string }).dashboardKey);
};

describe('publishEvents', () => {
  it('sends in batches of 10 and resends only the entries EventBridge refused', async () => {
    eb.on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 0, Entries: Array(10).fill({ EventId: 'e' }) })
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [{ EventId: 'e' }, { ErrorCode: 'ThrottlingException' }],
      })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e' }] });
    const client = new EventBridgeClient({ region: 'us-east-1' });
    expect(await publishEvents(client, 'bus', events(12))).toBe(12);
    expect(eb.commandCalls(PutEventsCommand).map((_, i) => keysOf(i).length)).toEqual([10, 2, 1]);
    expect(keysOf(2)).toEqual(['dash-11']);
  });

  it('names each dashboard whose event is still refused, with the error code', async () => {
    eb.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }],
    });
    const client = new EventBridgeClient({ region: 'us-east-1' });
    await expect(publishEvents(client, 'bus', events(1))).rejects.toThrow(
      'EventBridge rejected 1 of 1 Dashboard Synced event(s): dash-0 (InternalFailure: try again)',
    );
    expect(eb.commandCalls(PutEventsCommand)).toHaveLength(2);
  });
});
