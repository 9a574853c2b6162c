import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createManagementClient } from '../../../lib/api';
import { aliased, lenient, pipe, pipeSourceKind } from '../../../lib/schemas';
import { cannedServerPerTest, type CannedServer } from './canned-server';
import { fakeClock, managementCredentials, PIPE, SERVICE } from './fixtures';

let server: CannedServer;
const clients = cannedServerPerTest((s) => (server = s));

function client() {
  const c = createManagementClient({
    baseUrl: server.url,
    credentials: managementCredentials(),
    rateLimit: false,
    clock: fakeClock(),
  });
  clients.push(c);
  return c;
}

describe('tolerant reader: pipes', () => {
  it('a list with unknown fields, nulls and odd shapes in unused fields still reads', async () => {
    const c = client();
    server.enqueue({
      status: 200,
      // No requestId, a status as a string: envelope diagnostics never fail a parse.
      body: {
        status: '200',
        result: [
          {
            id: PIPE,
            name: null,
            state: null,
            serviceId: null,
            brandNewField: { nested: [1, 2] },
            scaling: 'auto',
            source: { kafka: { brokers: 5, topics: null, offset: 'latest' }, mysql: {} },
            destination: { columns: [{ name: 'a' }, 'b'], managedTable: 'yes' },
            fieldMappings: null,
            settings: { streaming_max_insert_wait_ms: null, engine_max_threads: 'many' },
            createdAt: 1700000000,
          },
          { id: 'not-a-uuid-but-an-id', name: 'second', state: 'Hibernating' },
        ],
      },
    });
    const [odd, second] = await c.listPipes(SERVICE);
    expect(odd).toMatchObject({
      id: PIPE,
      name: PIPE,
      state: 'Unknown',
      brandNewField: { nested: [1, 2] },
    });
    expect(odd?.scaling).toBeUndefined();
    expect(odd?.source?.kafka?.brokers).toBeUndefined();
    expect(pipeSourceKind(odd)).toBe('kafka');
    expect(odd?.settings).toMatchObject({ streaming_max_insert_wait_ms: null });
    expect(odd?.settings?.engine_max_threads).toBeUndefined();
    expect(second).toMatchObject({ name: 'second', state: 'Hibernating' });
  });

  it('a record without an id is still refused: nothing can be done with it', () => {
    expect(pipe.safeParse({ name: 'x', state: 'Running' }).success).toBe(false);
  });
});

describe('tolerant reader: helpers', () => {
  it('aliased reads a field under the current or the spec name; the current one wins', () => {
    const link = aliased(z.looseObject({ dashboardId: z.string().optional() }), {
      dashboardId: ['dashboard'],
    });
    expect(link.parse({ dashboard: 'spec' }).dashboardId).toBe('spec');
    expect(link.parse({ dashboardId: 'current' }).dashboardId).toBe('current');
    expect(link.parse({ dashboardId: 'current', dashboard: 'spec' }).dashboardId).toBe('current');
    expect(link.parse({ dashboardId: null, dashboard: 'spec' }).dashboardId).toBe('spec');
    expect(link.parse({}).dashboardId).toBeUndefined();
  });

  it('lenient turns a wrong shape or null into absent', () => {
    const s = z.looseObject({ n: lenient(z.number()) });
    expect(s.parse({ n: 'x' }).n).toBeUndefined();
    expect(s.parse({ n: null }).n).toBeUndefined();
    expect(s.parse({ n: 3 }).n).toBe(3);
    expect(s.parse({})).toEqual({});
  });
});
