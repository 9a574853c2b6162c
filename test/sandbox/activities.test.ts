/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- raw JSON bodies of the HTTP API under test */
/**
 * The organization's audit trail (key events as the service records them), the admin route that
 * ages a key, and `usedAt` kept to the minute when a key authenticates: in both profiles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index';
import { admin, basic, mgmt } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

const MINUTE = 60_000;

for (const profile of ['current', 'spec'] as const) {
  describe(`${profile} profile: activities and key age`, () => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await startTestSandbox({ profile });
    });
    afterAll(() => sb.close());

    /** A key create's role fields, as each profile takes them. */
    const role = (name: 'Admin' | 'Developer') =>
      profile === 'current'
        ? { assignedRoleIds: [sb.info.roleIds![name]] }
        : { roles: [name.toLowerCase()] };
    const activities = async (query = '') =>
      (await mgmt(sb, 'GET', `/activities${query}`)).json.result as Record<string, unknown>[];

    it('records the seed key as made in the console, and each API change of a key as openapi_key_update', async () => {
      const [seeded] = await activities();
      expect(seeded).toMatchObject({
        type: 'key_create',
        targetKeyId: sb.info.keyRecordId,
        actorType: 'user',
        actorIpAddress: '203.0.113.7',
      });
      const roles = role('Developer');
      const made = await mgmt(sb, 'POST', '/keys', { name: 'trail', ...roles });
      const id = made.json.result.key.id;
      await mgmt(sb, 'PATCH', `/keys/${id}`, { name: 'trail-2', state: 'disabled' });
      await mgmt(sb, 'DELETE', `/keys/${id}`);
      const trail = (await activities()).filter((a) => a.targetKeyId === id);
      expect(trail.map((a) => [a.type, a.keyUpdateType])).toEqual([
        ['openapi_key_update', 'created'],
        ['openapi_key_update', 'name-changed'],
        ['openapi_key_update', 'state-changed'],
        ['openapi_key_update', 'deleted'],
      ]);
      expect(trail[0]).toMatchObject({
        actorType: 'api',
        actorId: sb.info.keyRecordId,
        actorIpAddress: '127.0.0.1',
        organizationId: sb.info.organizationId,
      });
      expect(typeof trail[0].userAgent).toBe('string');
    });

    it('filters by from_date / to_date and refuses a malformed date with 400', async () => {
      const all = await activities();
      const last = String(all.at(-1)!.createdAt);
      const later = new Date(Date.parse(last) + MINUTE).toISOString();
      expect(await activities(`?from_date=${later}`)).toEqual([]);
      expect((await activities(`?from_date=2000-01-01T00:00:00Z&to_date=${later}`)).length).toBe(
        all.length,
      );
      const bad = await mgmt(sb, 'GET', '/activities?from_date=yesterday');
      expect(bad.status).toBe(400);
      expect(bad.json.error).toBe(
        'BAD_REQUEST: Query validation failed: from_date: expected an ISO-8601 date-time',
      );
    });

    it('needs the admin role, like the key list', async () => {
      const roles = role('Developer');
      const dev = (await mgmt(sb, 'POST', '/keys', { name: 'dev', ...roles })).json.result;
      const res = await mgmt(sb, 'GET', '/activities', undefined, basic(dev.keyId, dev.keySecret));
      expect(res.status).toBe(403);
    });

    it('sets usedAt to the minute a key authenticates; the admin route ages a key', async () => {
      const roles = role('Admin');
      const made = (await mgmt(sb, 'POST', '/keys', { name: 'aging', ...roles })).json.result;
      const id = made.key.id;
      expect(made.key.usedAt).toBeUndefined();
      await mgmt(sb, 'GET', '/keys', undefined, basic(made.keyId, made.keySecret));
      const used = (await mgmt(sb, 'GET', `/keys/${id}`)).json.result.usedAt;
      expect(Date.parse(used) % MINUTE).toBe(0);
      expect(sb.clock.now() - Date.parse(used)).toBeLessThan(MINUTE);

      const aged = await admin(sb, 'PATCH', `/keys/${id}`, {
        createdAt: '2025-01-01T00:00:00Z',
        usedAt: '2025-02-03T04:05:59.999Z',
      });
      expect(aged.status).toBe(200);
      expect(aged.json).not.toHaveProperty('keyIdHash');
      const record = (await mgmt(sb, 'GET', `/keys/${id}`)).json.result;
      expect([record.createdAt, record.usedAt]).toEqual([
        '2025-01-01T00:00:00.000Z',
        '2025-02-03T04:05:00.000Z',
      ]);
      await admin(sb, 'PATCH', `/keys/${id}`, { usedAt: null });
      expect((await mgmt(sb, 'GET', `/keys/${id}`)).json.result).not.toHaveProperty('usedAt');
    });

    it('the admin route names a bad field and an unknown key', async () => {
      const id = sb.info.keyRecordId;
      const bad = await admin(sb, 'PATCH', `/keys/${id}`, { usedAt: 'last week' });
      expect([bad.status, bad.json.error]).toEqual([
        400,
        'BAD_REQUEST: usedAt: expected an ISO-8601 date-time or null (never used)',
      ]);
      const extra = await admin(sb, 'PATCH', `/keys/${id}`, { expireAt: null });
      expect(extra.json.error).toBe(
        'BAD_REQUEST: expireAt: not a field of this route (createdAt, usedAt)',
      );
      const missing = await admin(sb, 'PATCH', '/keys/00000000-0000-4000-8000-000000000000', {});
      expect(missing.status).toBe(404);
    });
  });
}
