/**
 * The plan of a folder's webhooks and saved searches (pure): ownership by the webhook's
 * description marker and the search's tags, write-only parts compared by their digest, the
 * URL never shown, alerts on a search planned by the one tile-alert planner.
 */
import { describe, expect, it } from 'vitest';
import { planObjects } from '../../../lib/dashboards/objects-plan';
import type { DesiredSavedSearch, DesiredWebhook } from '../../../lib/dashboards/types';
import { describedWithMarker, parseWebhookMarker } from '../../../lib/dashboards/webhook-marker';
import { writeOnlyDigest } from '../../../lib/dashboards/value-digest';
import { withMarker } from '../../../lib/dashboards/ownership';
import type { Alert, SavedSearch, Webhook } from '../../../lib/schemas';

const URL_A = 'https://hooks.example.test/a-secret-path';
const hook = (over: Partial<DesiredWebhook> = {}): DesiredWebhook => ({
  key: 'hooks/pager',
  sourceFile: 'hooks/pager.yaml',
  name: 'Pager',
  service: 'generic',
  url: URL_A,
  headers: { Authorization: 'Token one' },
  templates: { url: '${PAGER_URL}', headers: { Authorization: '${PAGER_TOKEN}' } },
  ...over,
});
const onService = (want: DesiredWebhook, over: Partial<Webhook> = {}): Webhook => ({
  id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
  name: want.name,
  service: want.service,
  url: want.url,
  description: describedWithMarker(undefined, {
    key: want.key,
    owner: 'default',
    headers: writeOnlyDigest(want.key, want.headers),
    templates: want.templates,
  }),
  ...over,
});
const owner = { owner: 'default' };

describe('webhook marker', () => {
  it('round-trips key, owner, digests and the variable names, after the user description', () => {
    const text = describedWithMarker('Pages on-call', {
      key: 'a/b c',
      owner: 'team-1',
      headers: 'abc123',
      templates: { url: '${X_URL}' },
    });
    expect(text.split('\n')[0]).toBe('Pages on-call');
    expect(parseWebhookMarker(text)).toEqual({
      key: 'a/b c',
      owner: 'team-1',
      headers: 'abc123',
      templates: { url: '${X_URL}' },
    });
    expect(parseWebhookMarker('made by hand')).toBeUndefined();
  });

  it('a digest names no value and changes with it', () => {
    const one = writeOnlyDigest('k', { Authorization: 'Token one' })!;
    expect(one).not.toContain('one');
    expect(writeOnlyDigest('k', { Authorization: 'Token two' })).not.toBe(one);
    expect(writeOnlyDigest('other', { Authorization: 'Token one' })).not.toBe(one);
    expect(writeOnlyDigest('k', {})).toBeUndefined();
  });
});

describe('planObjects: webhooks', () => {
  it('in sync: unchanged, headers "unchanged (not readable)"', () => {
    const want = hook();
    const [c] = planObjects(
      { webhooks: [want], savedSearches: [] },
      { webhooks: [onService(want)] },
      owner,
    ).changes;
    expect(c).toMatchObject({
      action: 'unchanged',
      writeOnly: { headers: 'unchanged (not readable)' },
    });
  });

  it('a new header value is resent; a new URL is shown as changed but never as a value', () => {
    const was = hook();
    const now = hook({
      url: 'https://hooks.example.test/b-other',
      headers: { Authorization: 'Token two' },
    });
    const [c] = planObjects(
      { webhooks: [now], savedSearches: [] },
      { webhooks: [onService(was)] },
      owner,
    ).changes;
    expect(c.action).toBe('update');
    expect(c.writeOnly).toEqual({ headers: 'resent (changed)' });
    expect(c.fields).toContainEqual({ path: 'url', from: '(not shown)', to: '(not shown)' });
    expect(JSON.stringify(c)).not.toContain('a-secret-path');
    expect(JSON.stringify(c)).not.toContain('b-other');
    expect(JSON.stringify(c)).not.toContain('Token');
  });

  it('a hand-made webhook of the same name is a conflict (the service refuses a second), taken only with --adopt', () => {
    const want = hook();
    const hand = onService(want, { description: 'made by hand' });
    const lists = { webhooks: [hand] };
    const [c] = planObjects({ webhooks: [want], savedSearches: [] }, lists, owner).changes;
    expect(c.action).toBe('conflict');
    const [adopted] = planObjects({ webhooks: [want], savedSearches: [] }, lists, {
      ...owner,
      adopt: true,
    }).changes;
    expect(adopted).toMatchObject({ action: 'update', adopted: true, id: hand.id });
  });
});

describe('planObjects: saved searches and their alerts', () => {
  const search: DesiredSavedSearch = {
    key: 'errors',
    sourceFile: 'errors.yaml',
    name: 'Errors',
    sourceId: 'bbbbbbbbbbbbbbbbbbbbbbbb',
    where: 'level:error',
    tags: [],
    alerts: [
      {
        name: 'Many',
        threshold: 5,
        thresholdType: 'above',
        interval: '5m',
        channel: { type: 'webhook', webhookId: 'cccccccccccccccccccccccc' },
      },
    ],
  };
  const stored: SavedSearch = {
    id: 'dddddddddddddddddddddddd',
    name: 'Errors',
    sourceId: search.sourceId,
    select: '',
    where: 'level:error',
    whereLanguage: 'lucene',
    tags: withMarker([], 'errors', 'default', true),
  };

  it('a new declaration on an existing search is an alert create; an alert gone from the file is deleted', () => {
    const marked: Alert = {
      id: 'eeeeeeeeeeeeeeeeeeeeeeee',
      name: 'Old',
      source: 'saved_search',
      savedSearchId: stored.id,
      threshold: 1,
      thresholdType: 'above',
      interval: '5m',
      channel: { type: 'webhook', webhookId: 'cccccccccccccccccccccccc' },
      message: '[cloudops:s/errors/Old@2026-01-01T00:00:00.000Z]',
    };
    const [c] = planObjects(
      { webhooks: [], savedSearches: [search] },
      { savedSearches: [stored], alerts: [marked] },
      owner,
    ).changes;
    expect(c.action).toBe('unchanged');
    expect(c.alerts.map((a) => [a.action, a.name])).toEqual([
      ['create', 'Many'],
      ['delete', 'Old'],
    ]);
  });

  it('with --prune, a search no file declares is deleted, listing the alerts it takes', () => {
    const on: Alert = { id: 'ffffffffffffffffffffffff', name: 'Many', savedSearchId: stored.id };
    const [c] = planObjects(
      { webhooks: [], savedSearches: [] },
      { savedSearches: [stored], alerts: [on] },
      { ...owner, prune: true },
    ).changes;
    expect(c).toMatchObject({
      action: 'delete',
      key: 'errors',
      alertsDeleted: [{ id: on.id, name: 'Many' }],
    });
  });
});
