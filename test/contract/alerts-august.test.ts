/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
/**
 * Alerts in the August 2026 contract on the current profile: `numConsecutiveWindows` and PENDING on
 * both surfaces, the management API's email channel, and its per-field PUT (groupBy and
 * thresholdMax kept when omitted and never null; `scheduleStartAt: null` resets the offset).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index';
import { startTestSandbox } from '../support/sandbox';
import * as facts from './api-facts';
import { conforms, surfaces } from './support';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ profile: 'current' });
});
afterAll(() => sb.close());

const [api, management] = surfaces(() => sb);
const searchAlert = (extra: Record<string, unknown> = {}) => ({
  name: 'bursts',
  source: 'saved_search',
  savedSearchId: sb.info.savedSearchId,
  threshold: 5,
  thresholdMax: 50,
  thresholdType: 'between',
  interval: '15m',
  groupBy: 'ServiceName',
  numConsecutiveWindows: 3,
  scheduleOffsetMinutes: 5,
  channel: { type: 'webhook', webhookId: sb.info.webhookId },
  ...extra,
});

describe('alerts (August 2026)', () => {
  it('both surfaces list the seeded PENDING alert with its numConsecutiveWindows', async () => {
    for (const [s, shape] of [
      [api, facts.apiAlert],
      [management, facts.managementAlert],
    ] as const) {
      const alerts = s.payload(await s.call('GET', '/alerts'));
      for (const a of alerts) conforms(shape, a, `${s.name} alert ${a.id}`);
      expect(
        alerts.filter((a: { state: string }) => a.state === 'PENDING'),
        s.name,
      ).toEqual([expect.objectContaining({ source: 'saved_search', numConsecutiveWindows: 2 })]);
    }
  });

  it('numConsecutiveWindows and the schedule round-trip on both surfaces; 0 windows is refused', async () => {
    for (const s of [api, management]) {
      const created = await s.call('POST', '/alerts', searchAlert());
      expect(created.status, s.name).toBe(200);
      expect(s.payload(created)).toMatchObject({
        numConsecutiveWindows: 3,
        scheduleOffsetMinutes: 5,
        state: 'OK',
      });
      const zero = await s.call('POST', '/alerts', searchAlert({ numConsecutiveWindows: 0 }));
      expect([zero.status, s.message(zero)]).toEqual([
        400,
        'Body validation failed: numConsecutiveWindows: Too small: expected number to be >=1',
      ]);
    }
  });

  it('scheduleStartAt round-trips on both surfaces; a PUT with scheduleStartAt null clears it', async () => {
    const start = '2026-09-01T06:00:00Z';
    for (const [s, shape] of [
      [api, facts.apiAlert],
      [management, facts.managementAlert],
    ] as const) {
      const { scheduleOffsetMinutes: _o, ...rest } = searchAlert({ scheduleStartAt: start });
      const created = await s.call('POST', '/alerts', rest);
      expect(created.status, s.name).toBe(200);
      conforms(shape, s.payload(created), `${s.name} alert`);
      expect(s.payload(created).scheduleStartAt, s.name).toBe(start);
      const id = s.payload(created).id;
      const cleared = await s.call('PUT', `/alerts/${id}`, { ...rest, scheduleStartAt: null });
      expect(cleared.status, s.name).toBe(200);
      expect(s.payload(cleared), s.name).not.toHaveProperty('scheduleStartAt');
      expect(s.payload(cleared).scheduleOffsetMinutes ?? 0, s.name).toBe(0);
    }
  });

  it('an email channel: accepted by the management API, refused by /api/v2 (webhooks only)', async () => {
    const email = { type: 'email', emailRecipients: ['oncall@example.com'] };
    const created = await management.call('POST', '/alerts', searchAlert({ channel: email }));
    expect(created.status).toBe(200);
    conforms(facts.managementEnvelope(facts.managementAlert), created.json, 'email alert');
    expect(created.json.result.channel).toEqual(email);
    const bad = await management.call(
      'POST',
      '/alerts',
      searchAlert({ channel: { type: 'email', emailRecipients: ['nobody'] } }),
    );
    expect([bad.status, management.message(bad)]).toEqual([
      400,
      'Body validation failed: channel.emailRecipients.0: Invalid email address',
    ]);
    const refused = await api.call('POST', '/alerts', searchAlert({ channel: email }));
    expect(refused.status).toBe(400);
    expect(api.message(refused)).toMatch(/^Body validation failed: channel\.type: /);
  });

  it('management PUT: omitted groupBy and thresholdMax are kept, null refused; scheduleStartAt null resets the offset', async () => {
    const id = management.payload(await management.call('POST', '/alerts', searchAlert())).id;
    const {
      groupBy: _g,
      thresholdMax: _t,
      name: _n,
      numConsecutiveWindows: _w,
      ...rest
    } = searchAlert();
    const put = await management.call('PUT', `/alerts/${id}`, {
      ...rest,
      scheduleOffsetMinutes: undefined,
      scheduleStartAt: null,
    });
    expect(put.status).toBe(200);
    conforms(facts.managementEnvelope(facts.managementAlert), put.json, 'updated');
    expect(put.json.result).toMatchObject({
      groupBy: 'ServiceName',
      thresholdMax: 50,
      scheduleOffsetMinutes: 0,
      name: null,
      numConsecutiveWindows: null,
    });
    expect(put.json.result).not.toHaveProperty('scheduleStartAt');
    const nulls = await management.call('PUT', `/alerts/${id}`, {
      ...rest,
      groupBy: null,
      thresholdMax: null,
    });
    expect([nulls.status, nulls.json.error]).toEqual([
      400,
      'BAD_REQUEST: Body validation failed: groupBy: null is not allowed (omit it to keep the value); thresholdMax: null is not allowed (omit it to keep the value)',
    ]);
    // /api/v2 replaces: an omitted groupBy is gone.
    const replaced = await api.call('PUT', `/alerts/${id}`, { ...rest, thresholdMax: 50 });
    expect(api.payload(replaced)).not.toHaveProperty('groupBy');
  });
});
