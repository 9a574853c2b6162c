/**
 * The rotation's test call lists pipes through a narrow schema (lib/api/management/pipe-probe.ts):
 * it must send the same request as the full client's listPipes, accept and refuse the same
 * answers, and report an idle service the same way.
 */
import { describe, expect, it } from 'vitest';
import {
  createManagementClient,
  ResponseValidationError,
  ServiceIdleError,
} from '../../../lib/api';
import { connectManagement, withOperations } from '../../../lib/api/management/connection';
import { pipeProbeOperations } from '../../../lib/api/management/pipe-probe';
import { caught } from '../../support/caught';
import { cannedServerPerTest, fail, ok, type CannedServer } from './canned-server';
import { cannedClientOptions, PIPE, SERVICE } from './fixtures';

let server: CannedServer;
const clients = cannedServerPerTest((s) => (server = s));

function probe() {
  const c = withOperations(connectManagement(cannedClientOptions(server.url)), pipeProbeOperations);
  clients.push(c);
  return c;
}

function full() {
  const c = createManagementClient(cannedClientOptions(server.url));
  clients.push(c);
  return c;
}

/** Answers of the pipe list, from the ordinary to the malformed. */
const ANSWERS: [string, unknown][] = [
  ['an empty list', []],
  [
    'records with odd fields beside their id',
    [
      { id: PIPE, name: null, state: 'Hibernating', source: 'kafka', scaling: 3 },
      { id: 'not-a-uuid-but-an-id' },
    ],
  ],
  ['a record without an id', [{ name: 'no id' }]],
  ['a record with an empty id', [{ id: '' }]],
  ['a record that is not an object', [PIPE]],
  ['no list at all', { id: PIPE }],
];

describe('the pipe probe', () => {
  it('sends the request the full listPipes sends', async () => {
    server.enqueue(ok([]), ok([]));
    await full().listPipes(SERVICE);
    await probe().listPipes(SERVICE);
    const [wide, narrow] = server.requests;
    expect(narrow).toMatchObject({ method: wide.method, url: wide.url });
    expect(narrow.url).toMatch(new RegExp(`/services/${SERVICE}/pipes$`));
  });

  it.each(ANSWERS)(
    'given %s, succeeds or fails exactly as the full listPipes',
    async (_, result) => {
      server.enqueue(ok(result), ok(result));
      const outcome = (call: Promise<unknown>) =>
        call.then(
          () => 'read',
          (error: unknown) => (error instanceof ResponseValidationError ? 'refused' : error),
        );
      const wide = await outcome(full().listPipes(SERVICE));
      expect(await outcome(probe().listPipes(SERVICE))).toBe(wide);
    },
  );

  it('refuses the malformed answers (so the cases above compare both outcomes)', async () => {
    server.enqueue(ok([{ name: 'no id' }]));
    expect(await caught(probe().listPipes(SERVICE))).toBeInstanceOf(ResponseValidationError);
  });

  it('an idle service is a ServiceIdleError naming it, as for every pipe call', async () => {
    server.enqueue(fail(424, 'FAILED_DEPENDENCY: Service is not running. Current state: idle'));
    const error = await caught(probe().listPipes(SERVICE));
    expect(error).toBeInstanceOf(ServiceIdleError);
    expect((error as ServiceIdleError).serviceId).toBe(SERVICE);
  });
});
