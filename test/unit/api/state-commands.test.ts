import { describe, expect, it } from 'vitest';
import { ApiError, createManagementClient } from '../../../lib/api';
import { caught } from '../../support/caught';
import { cannedServerPerTest, fail, type CannedServer } from './canned-server';
import { cannedClientOptions, PIPE, SERVICE } from './fixtures';

let server: CannedServer;
const clients = cannedServerPerTest((s) => (server = s));

function client() {
  const c = createManagementClient({ ...cannedClientOptions(server.url), timeoutMs: 500 });
  clients.push(c);
  return c;
}

describe('pipe state commands are idempotent', () => {
  it('a retried start whose first answer was lost, now finding the pipe running, succeeds', async () => {
    const c = client();
    // The first PATCH started the pipe but its answer never arrived (reset); the retry then
    // hears the truth: the pipe is running.
    server.enqueue({ reset: true }, fail(400, 'BAD_REQUEST: pipe is already running'));
    await expect(c.pipeStateCommand(SERVICE, PIPE, 'start')).resolves.toBeUndefined();
    expect(server.requests.map((r) => r.method)).toEqual(['PATCH', 'PATCH']);
  });

  it('the start-only-from text naming Running counts as already started', async () => {
    const c = client();
    server.enqueue(
      fail(
        400,
        'BAD_REQUEST: pipe can be started only from Stopped or Failed. Current state: Running',
      ),
    );
    await expect(c.pipeStateCommand(SERVICE, PIPE, 'start')).resolves.toBeUndefined();
  });

  it('a retried stop that finds the pipe stopped succeeds', async () => {
    const c = client();
    server.enqueue(
      fail(503, 'SERVICE_UNAVAILABLE: x'),
      fail(400, 'BAD_REQUEST: pipe is already stopped'),
    );
    await expect(c.pipeStateCommand(SERVICE, PIPE, 'stop')).resolves.toBeUndefined();
  });

  it('a start refused for another state still fails, naming it', async () => {
    const c = client();
    server.enqueue(
      fail(
        400,
        'BAD_REQUEST: pipe can be started only from Stopped or Failed. Current state: Provisioning',
      ),
    );
    const error = await caught(c.pipeStateCommand(SERVICE, PIPE, 'start'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toContain('Current state: Provisioning');
  });

  it('"already running" does not make a stop or resync succeed', async () => {
    const c = client();
    server.enqueue(
      fail(400, 'BAD_REQUEST: pipe is already running'),
      fail(400, 'BAD_REQUEST: resync is allowed only for database (postgres) pipes'),
    );
    expect(await caught(c.pipeStateCommand(SERVICE, PIPE, 'stop'))).toBeInstanceOf(ApiError);
    expect(await caught(c.pipeStateCommand(SERVICE, PIPE, 'resync'))).toBeInstanceOf(ApiError);
  });
});
