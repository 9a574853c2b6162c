/**
 * The `spec` profile keeps the spec's snapshot: none of the August 2026 operations exist there
 * (the gateway's HTML 404 for a path it does not serve), and its alerts gain none of the new fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index';
import { startTestSandbox } from '../support/sandbox';
import { surfaces } from './support';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ profile: 'spec' });
});
afterAll(() => sb.close());

const id = '0123456789abcdef01234567';
const unserved: [string, string][] = [
  ['POST', '/dashboards/validate'],
  ['POST', '/webhooks'],
  ['PUT', `/webhooks/${id}`],
  ['DELETE', `/webhooks/${id}`],
  ['GET', '/saved-searches'],
  ['POST', '/saved-searches'],
  ['GET', `/saved-searches/${id}`],
  ['PUT', `/saved-searches/${id}`],
  ['DELETE', `/saved-searches/${id}`],
  ['POST', '/sources'],
  ['GET', `/sources/${id}`],
  ['PUT', `/sources/${id}`],
  ['DELETE', `/sources/${id}`],
];

describe.each(surfaces(() => sb))('spec profile, $name', (s) => {
  it.each(unserved)('%s %s is not served', async (method, path) => {
    const res = await s.call(
      method,
      path,
      method === 'GET' || method === 'DELETE' ? undefined : {},
    );
    expect(res.status).toBe(404);
    expect(res.json).toBeUndefined();
  });
});

describe('spec profile alerts', () => {
  it('keep none of the August 2026 fields a write sends (dropped without an error)', async () => {
    const [api] = surfaces(() => sb);
    const dashboard = sb.store.state.dashboards.find((d) => d.tiles.length > 0)!;
    const created = await api.call('POST', '/alerts', {
      name: 'windows',
      source: 'tile',
      dashboardId: dashboard.id,
      tileId: dashboard.tiles[0].id,
      threshold: 5,
      thresholdType: 'above',
      interval: '15m',
      numConsecutiveWindows: 3,
      scheduleOffsetMinutes: 5,
      channel: { type: 'webhook', webhookId: sb.info.webhookId },
    });
    expect(created.status, created.text).toBe(200);
    const kept = api.payload(created) as Record<string, unknown>;
    expect(kept).not.toHaveProperty('numConsecutiveWindows');
    expect(kept).not.toHaveProperty('scheduleOffsetMinutes');
  });

  it('carry the snapshot fields only', async () => {
    const [, management] = surfaces(() => sb);
    const alerts = management.payload(await management.call('GET', '/alerts')) as Record<
      string,
      unknown
    >[];
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts)
      for (const field of ['numConsecutiveWindows', 'scheduleOffsetMinutes', 'channels', 'teamId'])
        expect(alert).not.toHaveProperty(field);
  });
});
