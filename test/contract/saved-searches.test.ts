/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
/**
 * Saved-search CRUD of the current profile on both surfaces (API-FACTS, August 2026): fields,
 * filters in `<column> IN (...)` form, PUT as a full replace, and delete taking its alerts along.
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

const search = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  sourceId: sb.info.sourceId,
  select: 'Timestamp, Body',
  where: 'SeverityText:error',
  whereLanguage: 'lucene',
  orderBy: 'Timestamp DESC',
  tags: ['ops'],
  filters: [{ type: 'sql', condition: "ServiceName IN ('api', 'web')" }],
  ...extra,
});

describe.each(surfaces(() => sb))('saved searches on $name', (s) => {
  it('lists the seeded search (paged on /api/v2) and creates, reads back the same', async () => {
    const list = await s.call('GET', '/saved-searches');
    expect(list.status).toBe(200);
    if (s.name === 'api') conforms(facts.paginationMeta, list.json.meta, 'meta');
    const items = s.payload(list);
    for (const item of items) conforms(facts.savedSearch, item, `search ${item.name}`);
    expect(items.map((i: { id: string }) => i.id)).toContain(sb.info.savedSearchId);

    const created = await s.call('POST', '/saved-searches', search(`${s.name} errors`));
    expect(created.status).toBe(200);
    conforms(facts.savedSearch, s.payload(created), 'created');
    expect(s.payload(created)).toMatchObject(search(`${s.name} errors`));
    const read = await s.call('GET', `/saved-searches/${s.payload(created).id}`);
    expect(s.payload(read)).toEqual(s.payload(created));
  });

  it('PUT is a full replace: omitted fields are reset', async () => {
    const id = s.payload(await s.call('POST', '/saved-searches', search(`${s.name} replace`))).id;
    const put = await s.call('PUT', `/saved-searches/${id}`, {
      name: `${s.name} replaced`,
      sourceId: sb.info.sourceId,
    });
    expect(put.status).toBe(200);
    conforms(facts.savedSearch, s.payload(put), 'replaced');
    expect(s.payload(put)).toMatchObject({
      name: `${s.name} replaced`,
      select: '',
      where: '',
      whereLanguage: 'lucene',
      tags: [],
    });
    expect(s.payload(put)).not.toHaveProperty('orderBy');
    expect(s.payload(put)).not.toHaveProperty('filters');
  });

  it('refuses a filter not in <column> IN (...) form, an unknown source, a missing name', async () => {
    const filter = await s.call(
      'POST',
      '/saved-searches',
      search('f', { filters: [{ condition: "ServiceName = 'api'" }] }),
    );
    expect([filter.status, s.message(filter)]).toEqual([
      400,
      'Body validation failed: filters.0.condition: must be in the form <column> IN (...)',
    ]);
    const source = await s.call(
      'POST',
      '/saved-searches',
      search('s', { sourceId: 'fedcba9876543210fedcba98' }),
    );
    expect([source.status, s.message(source)]).toEqual([
      400,
      'sourceId must be an existing source id',
    ]);
    const nameless = await s.call('POST', '/saved-searches', { sourceId: sb.info.sourceId });
    expect(nameless.status).toBe(400);
    expect(s.message(nameless)).toMatch(/^Body validation failed: name: /);
    expect((await s.call('GET', '/saved-searches/0123456789abcdef01234567')).status).toBe(404);
  });

  it('DELETE also deletes every alert on the search', async () => {
    const id = s.payload(await s.call('POST', '/saved-searches', search(`${s.name} doomed`))).id;
    const alert = await s.call('POST', '/alerts', {
      source: 'saved_search',
      savedSearchId: id,
      threshold: 3,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhookId: sb.info.webhookId },
    });
    expect(alert.status).toBe(200);
    const del = await s.call('DELETE', `/saved-searches/${id}`);
    expect(del.status).toBe(200);
    if (s.name === 'management') conforms(facts.managementEmpty, del.json, 'deleted');
    else expect(del.json).toEqual({});
    expect((await s.call('GET', `/alerts/${s.payload(alert).id}`)).status).toBe(404);
    expect((await s.call('GET', `/saved-searches/${id}`)).status).toBe(404);
  });
});
