/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- raw JSON bodies of the HTTP API under test */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index';
import { basic, mgmt, obs, UUID_V4 } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

let sb: Sandbox;
const roomy = {
  management: { limit: 1000, windowMs: 10_000 },
  observability: { limit: 1000, windowMs: 60_000 },
};

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimits: roomy });
});
afterAll(() => sb.close());

async function createKey(body: Record<string, unknown>): Promise<{ id: string; auth: string }> {
  const res = await mgmt(sb, 'POST', '/keys', { name: 'test', roles: ['developer'], ...body });
  expect(res.status, res.text).toBe(200);
  return {
    id: res.json.result.key.id,
    auth: basic(res.json.result.keyId, res.json.result.keySecret),
  };
}

describe('management auth', () => {
  it('accepts the seed admin key and answers the success envelope', async () => {
    const res = await mgmt(sb, 'GET', '/keys');
    expect(res.status).toBe(200);
    expect(res.json.status).toBe(200);
    expect(res.json.requestId).toMatch(UUID_V4);
    expect(Array.isArray(res.json.result)).toBe(true);
  });

  it('rejects a wrong secret, an unknown key and a missing header with a JSON 401', async () => {
    for (const auth of [basic(sb.info.keyId, 'wrong-secret'), basic('NOPE', 'x'), '']) {
      const res = await mgmt(sb, 'GET', '/keys', undefined, auth);
      expect(res.status).toBe(401);
      expect(res.json.status).toBe(401);
      expect(res.json.error).toMatch(/^UNAUTHORIZED: /);
      expect(res.json.requestId).toMatch(UUID_V4);
    }
  });

  it('rejects a disabled key and accepts it again once enabled', async () => {
    const key = await createKey({ state: 'disabled' });
    expect(
      (await mgmt(sb, 'GET', '/services/' + sb.info.serviceId + '/pipes', undefined, key.auth))
        .status,
    ).toBe(401);
    expect((await mgmt(sb, 'PATCH', `/keys/${key.id}`, { state: 'enabled' })).status).toBe(200);
    expect(
      (await mgmt(sb, 'GET', '/services/' + sb.info.serviceId + '/pipes', undefined, key.auth))
        .status,
    ).toBe(200);
  });

  it('rejects a key once the sandbox clock passes its expireAt', async () => {
    const key = await createKey({ expireAt: new Date(sb.clock.now() + 60_000).toISOString() });
    const path = `/services/${sb.info.serviceId}/pipes`;
    expect((await mgmt(sb, 'GET', path, undefined, key.auth)).status).toBe(200);
    sb.clock.advance(61_000);
    const res = await mgmt(sb, 'GET', path, undefined, key.auth);
    expect(res.status).toBe(401);
    expect(res.json.error).toMatch(/expired/);
  });

  it('enforces the IP access list against the socket address', async () => {
    const outside = await createKey({
      ipAccessList: [{ source: '10.0.0.0/8', description: 'vpn' }],
    });
    const inside = await createKey({ ipAccessList: [{ source: '127.0.0.0/24' }] });
    const exact = await createKey({ ipAccessList: [{ source: '127.0.0.1' }] });
    const path = `/services/${sb.info.serviceId}/pipes`;
    expect((await mgmt(sb, 'GET', path, undefined, outside.auth)).status).toBe(401);
    expect((await mgmt(sb, 'GET', path, undefined, inside.auth)).status).toBe(200);
    expect((await mgmt(sb, 'GET', path, undefined, exact.auth)).status).toBe(200);
  });

  it('refuses an ipAccessList entry that is not an IP or CIDR', async () => {
    const res = await mgmt(sb, 'POST', '/keys', {
      name: 'x',
      roles: ['admin'],
      ipAccessList: [{ source: 'not-an-ip' }],
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toContain('ipAccessList[0].source');
  });
});

describe('roles', () => {
  it('needs admin for key operations and admin/developer for the rest', async () => {
    const developer = await createKey({ roles: ['developer'] });
    const queryOnly = await createKey({ roles: ['query_endpoints'] });
    const keys = await mgmt(sb, 'GET', '/keys', undefined, developer.auth);
    expect(keys.status).toBe(403);
    expect(keys.json.error).toMatch(/^FORBIDDEN: /);
    expect(
      (await mgmt(sb, 'GET', `/services/${sb.info.serviceId}/pipes`, undefined, developer.auth))
        .status,
    ).toBe(200);
    expect(
      (await mgmt(sb, 'GET', `/services/${sb.info.serviceId}/pipes`, undefined, queryOnly.auth))
        .status,
    ).toBe(403);
  });
});

describe('errors and routing', () => {
  it('answers a JSON 404 for an unknown resource and an HTML 404 for an unrouted path', async () => {
    const missing = await mgmt(
      sb,
      'GET',
      `/services/${sb.info.serviceId}/pipes/00000000-0000-4000-8000-000000000000`,
    );
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatch(/^NOT_FOUND: /);
    const unrouted = await fetch(`${sb.info.apiUrl}/v1/nothing-here`);
    expect(unrouted.status).toBe(404);
    expect(unrouted.headers.get('content-type')).toMatch(/text\/html/);
    expect(await unrouted.text()).toContain('Cannot GET /v1/nothing-here');
  });

  it('answers 400 for a malformed UUID path parameter', async () => {
    const res = await mgmt(sb, 'GET', '/keys/not-a-uuid');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/^BAD_REQUEST: .*keyRecordId/);
  });

  it('answers 400 naming the field for empty roles', async () => {
    const res = await mgmt(sb, 'POST', '/keys', { name: 'x', roles: [] });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/^BAD_REQUEST: Body validation failed: roles: /);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await fetch(`${sb.info.apiUrl}/v1/organizations/${sb.info.organizationId}/keys`, {
      method: 'POST',
      headers: {
        authorization: basic(sb.info.keyId, sb.info.keySecret),
        'content-type': 'application/json',
      },
      body: '{nope',
    });
    expect(res.status).toBe(400);
  });
});

describe('observability auth', () => {
  it('answers a plain-text 401 for a missing or bad bearer token', async () => {
    for (const token of [null, 'bogus-token']) {
      const res = await obs(sb, 'GET', '/dashboards', undefined, token);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.text).toBe('Unauthorized');
    }
  });

  it('accepts a token minted through the admin route, bound to its service', async () => {
    const minted = await fetch(`${sb.info.apiUrl}/_sandbox/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serviceId: sb.info.serviceIds[1] }),
    });
    const { token } = (await minted.json()) as { token: string };
    const res = await obs(sb, 'GET', '/dashboards', undefined, token);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual([]); // the second service has no dashboards
  });
});
