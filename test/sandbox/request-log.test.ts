/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index';
import { admin, basic, mgmt, obs, UUID_V4 } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';
import { DEFAULT_RATE_LIMITS } from '../../sandbox/index';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimits: DEFAULT_RATE_LIMITS });
});
afterAll(() => sb.close());

describe('request log and admin state', () => {
  it('records method, path, status, credential label and requestId, never a secret', async () => {
    sb.requestLog.clear();
    const created = await mgmt(sb, 'POST', '/keys', { name: 'logged', roles: ['admin'] });
    const { keyId, keySecret } = created.json.result;
    await mgmt(sb, 'GET', '/keys', undefined, basic(keyId, 'wrong'));
    await obs(sb, 'GET', '/dashboards');
    await obs(sb, 'GET', '/dashboards', undefined, 'not-a-token');
    const entries = sb.requestLog.entries();
    expect(entries.map((e) => [e.surface, e.method, e.status, e.credential])).toEqual([
      ['management', 'POST', 200, sb.info.keyId.slice(-4)],
      ['management', 'GET', 401, keyId.slice(-4)],
      ['observability', 'GET', 200, 'sandbox-token'],
      ['observability', 'GET', 401, undefined],
    ]);
    expect(entries[0].keyRecordId).toBe(sb.info.keyRecordId);
    expect(entries[0].requestId).toBe(created.json.requestId);
    expect(entries.every((e) => UUID_V4.test(e.requestId!))).toBe(true);
    expect(entries.map((e) => e.seq)).toEqual([...entries.map((e) => e.seq)].sort((a, b) => a - b));

    const viaHttp = await admin(sb, 'GET', '/requests');
    const text = JSON.stringify(entries) + viaHttp.text;
    for (const secret of [
      keySecret,
      sb.info.keySecret,
      sb.info.observabilityToken,
      keyId,
      sb.info.keyId,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(viaHttp.json.entries).toHaveLength(entries.length); // reading the log does not log itself
    expect((await admin(sb, 'DELETE', '/requests')).status).toBe(200);
    expect(sb.requestLog.entries()).toEqual([]);
  });

  it('dumps state without secrets, hashes or connection strings', async () => {
    const res = await admin(sb, 'GET', '/state');
    expect(res.status).toBe(200);
    expect(res.json.organizationId).toBe(sb.info.organizationId);
    expect(res.json.pipes.length).toBeGreaterThanOrEqual(4);
    const connection = sb.store.state.pipes.find((p) => p.source?.objectStorage)!.source!
      .objectStorage!.connectionString!;
    for (const secret of [
      sb.info.keySecret,
      sb.info.observabilityToken,
      connection,
      sb.store.state.keys[0].keySecretHash,
    ]) {
      expect(res.text).not.toContain(secret);
    }
    expect(res.json.secretsManager.map((s: { name: string }) => s.name)).toHaveLength(2);
  });

  it('creates webhooks and advances the clock through admin routes', async () => {
    const hook = await admin(sb, 'POST', '/webhooks', { name: 'extra' });
    expect(hook.json).toMatchObject({ name: 'extra', serviceId: sb.info.serviceId });
    const before = sb.clock.now();
    const moved = await admin(sb, 'POST', '/clock', { advanceMs: 90_000 });
    expect(Date.parse(moved.json.now)).toBeGreaterThanOrEqual(before + 90_000);
    expect((await admin(sb, 'POST', '/clock', { advanceMs: -1 })).status).toBe(400);
  });
});
