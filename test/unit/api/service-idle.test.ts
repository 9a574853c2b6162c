import { describe, expect, it } from 'vitest';
import {
  ApiError,
  createManagementClient,
  isServiceIdle,
  ServiceIdleError,
} from '../../../lib/api';
import { cannedServerPerTest, fail, type CannedServer } from './canned-server';
import { cannedClientOptions, PIPE, SERVICE } from './fixtures';
import { caught } from '../../support/caught';

let server: CannedServer;
const clients = cannedServerPerTest((s) => (server = s));

function client() {
  const c = createManagementClient(cannedClientOptions(server.url));
  clients.push(c);
  return c;
}

const IDLE = 'FAILED_DEPENDENCY: Service is not running. Current state: idle';

describe('a pipe call on an idle service', () => {
  it('becomes a ServiceIdleError naming the service, sent once (never retried)', async () => {
    const c = client();
    server.enqueue(fail(424, IDLE));
    const error = await caught(c.listPipes(SERVICE));
    expect(error).toBeInstanceOf(ServiceIdleError);
    expect(isServiceIdle(error)).toBe(true);
    const idle = error as ServiceIdleError;
    expect(idle.serviceId).toBe(SERVICE);
    expect(idle.status).toBe(424);
    expect(idle.retryable).toBe(false);
    expect(idle.message).toContain(`service ${SERVICE} is idle`);
    expect(server.requests).toHaveLength(1);
  });

  it('is typed for every pipe call: get, settings, state command, delete', async () => {
    const c = client();
    server.enqueue(fail(424, IDLE), fail(424, IDLE), fail(424, IDLE), fail(424, IDLE));
    for (const call of [
      () => c.getPipe(SERVICE, PIPE),
      () => c.getPipeSettings(SERVICE, PIPE),
      () => c.pipeStateCommand(SERVICE, PIPE, 'start'),
      () => c.deletePipe(SERVICE, PIPE),
    ]) {
      expect(await caught(call())).toBeInstanceOf(ServiceIdleError);
    }
  });

  it('a 424 naming another state stays a plain ApiError', async () => {
    const c = client();
    server.enqueue(fail(424, 'FAILED_DEPENDENCY: Current state: stopped'));
    const error = await caught(c.listPipes(SERVICE));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(ServiceIdleError);
  });
});
