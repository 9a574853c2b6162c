/**
 * The tile alert ledger over the deployed version store (DynamoDB on dynalite, the real SDK
 * client): a no-op dashboard sync asks it once per dashboard with alerts, so that question
 * must cost one read, and still see a newer claim that has not settled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createVersionTable,
  DynamoVersionStore,
  TileAlertLedger,
  versionScope,
} from '../../lib/alerts';
import type { Dashboard } from '../../lib/schemas';
import { startLocalDynamo, type LocalDynamo } from '../support/local-dynamo';
import { declared, iso, syncedEvent } from './alert-events';
import { VERSION_TABLE } from './alerts-helpers';

let dynamo: LocalDynamo;
/** DynamoDB operations sent through `dynamo.client`, by command name. */
const sent: string[] = [];

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  await createVersionTable(dynamo.client, VERSION_TABLE);
  dynamo.client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
});
afterAll(() => dynamo.close());

const dash: Dashboard = {
  id: 'd1',
  name: 'ledger',
  tiles: [{ id: 't1', name: 'Errors', x: 0, y: 0, w: 6, h: 4, series: [] }],
} as unknown as Dashboard;
const event = (at: string, threshold = 10) =>
  syncedEvent(dash, [declared('w1', 'Errors', 'E', threshold)], at);

describe('TileAlertLedger on DynamoDB', () => {
  it('answers "settled?" with one GetItem, and a newer unsettled claim makes it false', async () => {
    const store = new DynamoVersionStore({ client: dynamo.client, tableName: VERSION_TABLE });
    const ledger = new TileAlertLedger(store, versionScope({ mode: 'managed', serviceId: 's1' }));
    const key = `dashboards/${dash.name}.yaml`;
    expect(await ledger.claim(key, iso(1_000))).toBe(true);
    await ledger.settle(event(iso(1_000)));

    sent.length = 0;
    expect(await ledger.settled(event(iso(2_000)))).toBe(true);
    expect(sent).toEqual(['GetItemCommand']);

    expect(await ledger.settled(event(iso(2_000), 11))).toBe(false);
    expect(await ledger.claim(key, iso(2_000))).toBe(true);
    sent.length = 0;
    expect(await ledger.settled(event(iso(2_000)))).toBe(false);
    expect(sent).toEqual(['GetItemCommand']);
  });
});
