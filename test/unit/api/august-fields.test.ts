/**
 * The August 2026 fields of alerts and tiles through the client: sent as written (never stripped
 * by a body schema), read back typed, and a field of an unexpected shape never fails a read.
 */
import { describe, expect, it } from 'vitest';
import { createManagementClient, createObservabilityClient } from '../../../lib/api';
import { alertLinks, dashboard, dashboardWrite } from '../../../lib/schemas';
import { caught } from '../../support/caught';
import { cannedServerPerTest, ok, type CannedServer } from './canned-server';
import { fakeClock, managementCredentials, observabilityCredentials, SERVICE } from './fixtures';

let server: CannedServer;
const closers = cannedServerPerTest((s) => (server = s));

function clients() {
  const management = createManagementClient({
    baseUrl: server.url,
    credentials: managementCredentials(),
    rateLimit: false,
    clock: fakeClock(),
  });
  const observability = createObservabilityClient({
    baseUrl: server.url,
    credentials: observabilityCredentials(),
    rateLimit: false,
    clock: fakeClock(),
  });
  closers.push(management, observability);
  return { management, observability };
}

const sentBody = () => JSON.parse(server.requests.at(-1)?.body ?? '{}') as Record<string, unknown>;

const searchAlert = {
  name: 'errors burst',
  source: 'saved_search' as const,
  savedSearchId: '65f1c2d3e4f5a6b7c8d9e0b2',
  threshold: 10,
  thresholdType: 'above' as const,
  interval: '15m' as const,
  channel: { type: 'email', emailRecipients: ['oncall@example.com', 'ops+alerts@example.com'] },
  numConsecutiveWindows: 3,
  scheduleOffsetMinutes: 5,
  note: 'see the runbook',
  groupBy: 'ServiceName',
};

describe('alerts: the August 2026 fields', () => {
  it('a saved-search alert with an email channel, windows and an offset is sent whole', async () => {
    const { management } = clients();
    server.enqueue(ok({ id: 'a1', ...searchAlert, state: 'PENDING' }));
    const created = await management.createAlert(SERVICE, searchAlert);
    expect(sentBody()).toEqual(searchAlert);
    expect(created).toMatchObject({
      state: 'PENDING',
      numConsecutiveWindows: 3,
      scheduleOffsetMinutes: 5,
    });
    expect(alertLinks(created).savedSearchId).toBe(searchAlert.savedSearchId);
  });

  it('a start time instead of an offset; null clears', async () => {
    const { observability } = clients();
    server.enqueue({ status: 200, body: { data: { id: 'a1' } } });
    const { scheduleOffsetMinutes: _o, ...rest } = searchAlert;
    await observability.updateAlert('a1', {
      ...rest,
      scheduleStartAt: '2026-08-01T06:00:00Z',
      numConsecutiveWindows: null,
    });
    expect(sentBody()).toMatchObject({
      scheduleStartAt: '2026-08-01T06:00:00Z',
      numConsecutiveWindows: null,
      source: 'saved_search',
    });
  });

  it('refuses what the service or the provider would: offsets at or past the interval, both schedules, bad channels', async () => {
    const { management } = clients();
    const cases: [Record<string, unknown>, string][] = [
      [
        { scheduleOffsetMinutes: 15 },
        'scheduleOffsetMinutes: must be less than the interval (15m)',
      ],
      [
        { scheduleStartAt: '2026-08-01T06:00:00Z' },
        'scheduleStartAt: set either scheduleOffsetMinutes or scheduleStartAt, not both',
      ],
      [{ numConsecutiveWindows: 0 }, 'numConsecutiveWindows: Too small: expected number to be >=1'],
      [
        { channel: { type: 'email', emailRecipients: [] } },
        'channel.emailRecipients: at least one recipient for an email channel',
      ],
      [
        { channel: { type: 'email', emailRecipients: ['not-an-address'] } },
        'channel.emailRecipients[0]: not an email address',
      ],
      [{ channel: { type: 'webhook' } }, 'channel.webhookId: required for a webhook channel'],
    ];
    for (const [change, issue] of cases) {
      const error = await caught(management.createAlert(SERVICE, { ...searchAlert, ...change }));
      expect(error, issue).toMatchObject({ name: 'ValidationError', issues: [issue] });
    }
    expect(server.requests).toHaveLength(0);
  });

  it('reads channels, PENDING and unknown channel types; odd shapes in these fields read as absent', async () => {
    const { observability } = clients();
    server.enqueue({
      status: 200,
      body: {
        data: {
          id: 'a1',
          state: 'PENDING',
          channel: { type: 'webhook', webhookId: 'w1', webhookService: 'slack', severity: 'high' },
          channels: [{ type: 'webhook', webhookId: 'w1' }, { type: 'pagerduty' }],
          numConsecutiveWindows: 'three',
          scheduleOffsetMinutes: null,
          futureField: { x: 1 },
        },
      },
    });
    const read = await observability.getAlert('a1');
    expect(read).toMatchObject({
      state: 'PENDING',
      futureField: { x: 1 },
      scheduleOffsetMinutes: null,
    });
    expect(read.channel).toMatchObject({ webhookService: 'slack', severity: 'high' });
    expect(read.channels).toHaveLength(2);
    expect(read.numConsecutiveWindows).toBeUndefined();
  });
});

describe('tiles and dashboards: the August 2026 fields', () => {
  const tiles = [
    {
      id: 't1',
      name: 'latency',
      x: 0,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'line',
        sourceId: 's',
        select: [{ aggFn: 'avg', valueExpression: 'Duration' }],
        fitYAxisToData: true,
      },
    },
    {
      id: 't2',
      name: 'errors',
      x: 6,
      y: 0,
      w: 3,
      h: 3,
      config: {
        displayType: 'number',
        sourceId: 's',
        select: [{ aggFn: 'count' }],
        color: 'chart-red',
        colorRules: [
          { operator: 'gt', value: 10, color: 'chart-red', label: 'bad' },
          { operator: 'between', value: [1, 10], color: 'chart-orange' },
        ],
        backgroundChart: { type: 'area', color: 'chart-gray' },
      },
    },
    {
      id: 't3',
      name: 'by service',
      x: 9,
      y: 0,
      w: 3,
      h: 3,
      config: {
        displayType: 'pie',
        sourceId: 's',
        select: [{ aggFn: 'count' }],
        groupBy: 'ServiceName',
        orderBy: 'count() DESC',
        limit: 5,
      },
    },
    {
      id: 't4',
      name: 'top',
      x: 12,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'bar',
        sourceId: 's',
        select: [{ aggFn: 'count' }],
        groupBy: 'ServiceName',
        limit: 10,
        numberFormat: { output: 'number' },
      },
    },
    {
      id: 't5',
      name: 'patterns',
      x: 18,
      y: 0,
      w: 6,
      h: 3,
      config: {
        displayType: 'event_patterns',
        sourceId: 's',
        select: 'Body',
        where: 'level:error',
        whereLanguage: 'lucene',
      },
    },
    {
      id: 't6',
      name: 'links',
      x: 0,
      y: 3,
      w: 12,
      h: 3,
      config: {
        displayType: 'table',
        sourceId: 's',
        select: [{ aggFn: 'count' }],
        onClick: { type: 'external', urlTemplate: 'https://runbooks.example/{{ServiceName}}' },
      },
    },
  ];
  const dash = {
    id: 'd1',
    name: 'August',
    tags: [],
    tiles,
    filters: [
      {
        id: 'f1',
        type: 'QUERY_EXPRESSION',
        name: 'Service',
        expression: 'ServiceName',
        sourceId: 's',
        appliesToSourceIds: ['s', 't'],
      },
    ],
  };

  it('read, then written back: every new field survives both ways (a pull loses nothing)', async () => {
    const { management } = clients();
    server.enqueue(ok(dash), ok(dash));
    const read = await management.getDashboard(SERVICE, 'd1');
    expect(read).toEqual(dash);
    await management.updateDashboard(SERVICE, 'd1', {
      name: read.name,
      tags: read.tags,
      tiles: read.tiles,
      filters: read.filters,
    });
    expect(sentBody()).toEqual({ name: 'August', tags: [], tiles, filters: dash.filters });
  });

  it('a read never fails on an odd shape of a new field; a write refuses one before sending', async () => {
    const odd = dashboard.parse({
      ...dash,
      filters: 'all',
      tiles: [{ ...tiles[1], config: { displayType: 'number', colorRules: 'red', limit: '5' } }],
    });
    expect(odd.filters).toBeUndefined();
    expect(odd.tiles[0]?.config).toEqual({
      displayType: 'number',
      colorRules: undefined,
      limit: undefined,
    });
    const issues = (config: unknown) =>
      dashboardWrite
        .safeParse({ tiles: [{ name: 't', x: 0, y: 0, w: 1, h: 1, config }] })
        .error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ displayType: 'table', onClick: { type: 'dashboard', target: 'x' } })).toEqual([
      'tiles.0.config.onClick: must be { type: "external", urlTemplate }',
    ]);
    expect(issues({ displayType: 'number', backgroundChart: { type: 'bars' } })).toEqual([
      'tiles.0.config.backgroundChart.type: must be line or area',
    ]);
    expect(issues({ displayType: 'pie', limit: 0 })).toEqual([
      'tiles.0.config.limit: Too small: expected number to be >0',
    ]);
    const { management } = clients();
    const bad = await caught(
      management.createDashboard(SERVICE, {
        name: 'x',
        tiles: [{ ...tiles[5], config: { displayType: 'table', onClick: { type: 'search' } } }],
      }),
    );
    expect(bad).toMatchObject({ name: 'ValidationError' });
    expect(server.requests).toHaveLength(0);
  });
});
