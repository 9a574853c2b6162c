/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipe as pipeSchema, pipeSourceKind } from '../../lib/schemas';
import type { Sandbox } from '../../sandbox/index';
import { admin, mgmt } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimits: { management: { limit: 1000, windowMs: 10_000 } } });
});
afterAll(() => sb.close());

const pipesPath = () => `/services/${sb.info.serviceId}/pipes`;
function pipeOf(kind: string, state?: string) {
  const found = sb.store.state.pipes.find(
    (p) =>
      p.serviceId === sb.info.serviceId &&
      pipeSourceKind(p) === kind &&
      (!state || p.state === state),
  );
  if (!found) throw new Error(`no seeded ${kind} pipe`);
  return found;
}

describe('pipes', () => {
  it('seeds pipes of every source kind that parse with the pipe schema', async () => {
    const res = await mgmt(sb, 'GET', pipesPath());
    expect(res.status).toBe(200);
    const kinds = new Set(res.json.result.map((p: unknown) => pipeSourceKind(pipeSchema.parse(p))));
    expect(kinds).toEqual(new Set(['kafka', 'objectStorage', 'kinesis', 'postgres']));
    const states = new Set(sb.store.state.pipes.map((p) => p.state));
    expect(states.size).toBeGreaterThanOrEqual(4);
  });

  it('reads a pipe and its settings; a pipe of another service is 404', async () => {
    const pipe = pipeOf('kafka');
    const got = await mgmt(sb, 'GET', `${pipesPath()}/${pipe.id}`);
    expect(got.json.result.id).toBe(pipe.id);
    const settings = await mgmt(sb, 'GET', `${pipesPath()}/${pipe.id}/settings`);
    expect(settings.json.result).toEqual(pipe.settings);
    const other = await mgmt(sb, 'GET', `/services/${sb.info.serviceIds[1]}/pipes/${pipe.id}`);
    expect(other.status).toBe(404);
  });

  it('applies state commands with the real rules', async () => {
    const stopped = pipeOf('kinesis', 'Stopped');
    const started = await mgmt(sb, 'PATCH', `${pipesPath()}/${stopped.id}/state`, {
      command: 'start',
    });
    expect(started.status).toBe(200);
    expect(started.json.result.state).toBe('Running');
    const again = await mgmt(sb, 'PATCH', `${pipesPath()}/${stopped.id}/state`, {
      command: 'start',
    });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('BAD_REQUEST: pipe is already running');
    const resync = await mgmt(sb, 'PATCH', `${pipesPath()}/${stopped.id}/state`, {
      command: 'resync',
    });
    expect(resync.status).toBe(400);
    const pg = pipeOf('postgres');
    const pgResync = await mgmt(sb, 'PATCH', `${pipesPath()}/${pg.id}/state`, {
      command: 'resync',
    });
    expect(pgResync.json.result.state).toBe('Resync');
    const bad = await mgmt(sb, 'PATCH', `${pipesPath()}/${pg.id}/state`, { command: 'explode' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain('command');
  });

  it('lets the admin route set any state and bumps updatedAt', async () => {
    const pipe = pipeOf('kafka');
    const before = pipe.updatedAt!;
    sb.clock.advance(5_000);
    const res = await admin(sb, 'PUT', `/pipes/${pipe.id}/state`, { state: 'SomethingNew' });
    expect(res.status).toBe(200);
    const got = await mgmt(sb, 'GET', `${pipesPath()}/${pipe.id}`);
    expect(got.json.result.state).toBe('SomethingNew');
    expect(Date.parse(got.json.result.updatedAt)).toBeGreaterThan(Date.parse(before));
    expect(
      (await admin(sb, 'PUT', `/pipes/00000000-0000-4000-8000-000000000000/state`, { state: 'x' }))
        .status,
    ).toBe(404);
  });

  it('deletes a pipe', async () => {
    const pipe = pipeOf('objectStorage');
    expect((await mgmt(sb, 'DELETE', `${pipesPath()}/${pipe.id}`)).status).toBe(200);
    expect((await mgmt(sb, 'GET', `${pipesPath()}/${pipe.id}`)).status).toBe(404);
  });
});
