/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Base64 } from '../../sandbox/ids';
import type { Sandbox } from '../../sandbox/index';
import { basic, mgmt } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ rateLimits: { management: { limit: 1000, windowMs: 10_000 } } });
});
afterAll(() => sb.close());

describe('keys', () => {
  it('creates a key without hashData: returns keyId/keySecret once, stores only hashes', async () => {
    const res = await mgmt(sb, 'POST', '/keys', { name: 'ci', roles: ['admin'] });
    expect(res.status).toBe(200);
    const { key, keyId, keySecret } = res.json.result;
    expect(key.keySuffix).toBe(keyId.slice(-4));
    expect(key.state).toBe('enabled');
    expect(key.expireAt).toBeNull();
    expect(key.usedAt).toBeUndefined();
    const row = sb.store.key(key.id)!;
    expect(row.keyIdHash).toBe(sha256Base64(keyId));
    expect(row.keySecretHash).toBe(sha256Base64(keySecret));
    expect(JSON.stringify(sb.store.state)).not.toContain(keySecret);
    const again = await mgmt(sb, 'GET', `/keys/${key.id}`);
    expect(again.json.result).not.toHaveProperty('keySecret');
    expect(again.json.result).not.toHaveProperty('keyIdHash');
  });

  it('creates a key with hashData: no material returned, the chosen credentials work, duplicate hash is 409', async () => {
    const keyId = 'HASHEDKEYID000000XYZ9';
    const keySecret = '4b1dmy-own-secret-material-0123456789';
    const hashData = {
      keyIdHash: sha256Base64(keyId),
      keyIdSuffix: keyId.slice(-4),
      keySecretHash: sha256Base64(keySecret),
    };
    const res = await mgmt(sb, 'POST', '/keys', { name: 'hashed', roles: ['admin'], hashData });
    expect(res.status).toBe(200);
    expect(res.json.result.keyId).toBeUndefined();
    expect(res.json.result.keySecret).toBeUndefined();
    expect(res.json.result.key.keySuffix).toBe('XYZ9');
    const used = await mgmt(sb, 'GET', '/keys', undefined, basic(keyId, keySecret));
    expect(used.status).toBe(200);
    const mine = used.json.result.find((k: { id: string }) => k.id === res.json.result.key.id);
    // usedAt has one-minute precision.
    expect(mine.usedAt).toMatch(/:00\.000Z$/);
    const duplicate = await mgmt(sb, 'POST', '/keys', { name: 'dup', roles: ['admin'], hashData });
    expect(duplicate.status).toBe(409);
    expect(duplicate.json.error).toMatch(/^CONFLICT: /);
  });

  it('updates a key and rejects empty roles on update', async () => {
    const created = await mgmt(sb, 'POST', '/keys', { name: 'to-update', roles: ['developer'] });
    const id = created.json.result.key.id;
    const updated = await mgmt(sb, 'PATCH', `/keys/${id}`, {
      name: 'renamed',
      roles: ['admin', 'developer'],
    });
    expect(updated.status).toBe(200);
    expect(updated.json.result).toMatchObject({
      id,
      name: 'renamed',
      roles: ['admin', 'developer'],
    });
    const bad = await mgmt(sb, 'PATCH', `/keys/${id}`, { roles: [] });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain('roles');
  });

  it('deletes a key (200 without result), but a key cannot delete itself', async () => {
    const created = await mgmt(sb, 'POST', '/keys', { name: 'doomed', roles: ['admin'] });
    const { key, keyId, keySecret } = created.json.result;
    const self = await mgmt(sb, 'DELETE', `/keys/${key.id}`, undefined, basic(keyId, keySecret));
    expect(self.status).toBe(400);
    const removed = await mgmt(sb, 'DELETE', `/keys/${key.id}`);
    expect(removed.status).toBe(200);
    expect(removed.json).not.toHaveProperty('result');
    expect((await mgmt(sb, 'GET', `/keys/${key.id}`)).status).toBe(404);
    expect((await mgmt(sb, 'GET', '/keys', undefined, basic(keyId, keySecret))).status).toBe(401);
  });

  it('limits an organization to 100 keys', async () => {
    const room = 100 - sb.store.state.keys.length;
    for (let i = 0; i < room; i++) {
      expect(
        (await mgmt(sb, 'POST', '/keys', { name: `k${i}`, roles: ['developer'] })).status,
      ).toBe(200);
    }
    const over = await mgmt(sb, 'POST', '/keys', { name: 'one too many', roles: ['developer'] });
    expect(over.status).toBe(400);
    expect(over.json.error).toContain('100');
  });
});
