/**
 * The alert reader is tolerant (issue 15 §1/§4): what the current service answers parses, both
 * link spellings are read, `search` goes out as `saved_search`, and the `/api/v2` alert list
 * is read page by page.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { diffFields, fieldsOfAlert, fieldsOfBody } from '../../../lib/alerts';
import { createObservabilityClient } from '../../../lib/api';
import { alert, alertLinks, createAlertBody, type CreateAlertBody } from '../../../lib/schemas';
import { cannedServerPerTest, type CannedServer } from '../api/canned-server';
import { alertBody, fakeClock, observabilityCredentials } from '../api/fixtures';

let server: CannedServer;
const closers = cannedServerPerTest((s) => (server = s));

const body: CreateAlertBody = { ...alertBody, message: 'lag high' };

/** As the current service answers (API-FACTS "The service as it stands today"). */
const current = {
  id: 'a1',
  name: 'lag',
  message: 'lag high',
  threshold: 5,
  interval: '5m',
  thresholdType: 'above',
  source: 'tile',
  state: 'OK',
  channel: { type: 'webhook', webhookId: 'w1' },
  dashboardId: 'd1',
  tileId: 't1',
  teamId: 'team1',
  silenced: { by: null, at: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' },
  note: 'x',
  scheduleOffsetMinutes: 0,
  executionErrors: [],
  numConsecutiveWindows: 1,
  channels: [{ type: 'webhook', webhookId: 'w1' }],
  createdAt: '2026-01-01T00:00:00Z',
};

describe('alert reader', () => {
  it('parses silenced objects, null names and messages, unknown fields', () => {
    const list = z
      .array(alert)
      .parse([current, { ...current, id: 'a2', name: null, message: null, silenced: true }]);
    expect(list.map((a) => a.id)).toEqual(['a1', 'a2']);
    expect(fieldsOfAlert(list[1]).name).toBe('');
  });

  it('reads links under both spellings: an alert written by cloudops compares unchanged', () => {
    const spec = {
      ...current,
      dashboardId: undefined,
      tileId: undefined,
      dashboard: 'd1',
      tile: 't1',
    };
    for (const a of [current, spec]) {
      const parsed = alert.parse(a);
      expect(alertLinks(parsed)).toMatchObject({ dashboardId: 'd1', tileId: 't1' });
      expect(diffFields(fieldsOfAlert(parsed), fieldsOfBody(body))).toEqual([]);
    }
    // A different tile is a change (the comparison is not blind).
    expect(
      diffFields(fieldsOfAlert(alert.parse({ ...current, tileId: 't2' })), fieldsOfBody(body)),
    ).toEqual(['tileId']);
  });

  it('saved_search and search compare equal; range thresholds need thresholdMax >= threshold', () => {
    const saved = {
      ...body,
      source: 'search' as const,
      savedSearchId: 's1',
      dashboardId: undefined,
      tileId: undefined,
    };
    const read = alert.parse({
      ...current,
      source: 'saved_search',
      savedSearchId: 's1',
      dashboardId: null,
      tileId: null,
    });
    expect(diffFields(fieldsOfAlert(read), fieldsOfBody(saved))).toEqual([]);
    expect(createAlertBody.safeParse({ ...body, thresholdType: 'between' }).success).toBe(false);
    expect(
      createAlertBody.safeParse({ ...body, thresholdType: 'between', thresholdMax: 4 }).success,
    ).toBe(false);
    expect(
      createAlertBody.safeParse({ ...body, thresholdType: 'not_between', thresholdMax: 9 }).success,
    ).toBe(true);
    expect(
      createAlertBody.safeParse({ ...body, source: 'saved_search', dashboardId: undefined })
        .success,
    ).toBe(false);
  });

  it('lists /api/v2 alerts page by page (meta) and sends saved_search for search', async () => {
    const c = createObservabilityClient({
      baseUrl: server.url,
      credentials: observabilityCredentials(),
      rateLimit: false,
      clock: fakeClock(),
      random: () => 0,
    });
    closers.push(c);
    const page = (ids: string[], offset: number) => ({
      status: 200,
      body: { data: ids.map((id) => ({ ...current, id })), meta: { total: 5, limit: 2, offset } },
    });
    server.enqueue(page(['a', 'b'], 0), page(['c', 'd'], 2), page(['e'], 4), {
      status: 200,
      body: { data: { ...current, id: 'n' } },
    });
    expect((await c.listAlerts()).map((a) => a.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v2/alerts?limit=1000&offset=0',
      '/api/v2/alerts?limit=1000&offset=2',
      '/api/v2/alerts?limit=1000&offset=4',
    ]);
    await c.createAlert({ ...body, source: 'search', savedSearchId: 's1' });
    expect(JSON.parse(server.requests[3]?.body ?? '{}')).toMatchObject({ source: 'saved_search' });
  });
});
