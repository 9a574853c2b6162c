/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
/**
 * Dashboards in the August 2026 contract, on both surfaces of the current profile: the dry-run
 * validate (refusing what a create refuses, with the same path and message), the `bar` and
 * `event_patterns` tiles, the new optional tile fields and `filters[].appliesToSourceIds`.
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

const src = () => sb.info.sourceId;
const count = [{ aggFn: 'count', where: '', whereLanguage: 'lucene' }];
const tile = (name: string, config: Record<string, unknown>, x = 0) => ({
  name,
  x,
  y: 0,
  w: 4,
  h: 3,
  config: { sourceId: src(), ...config },
});
/** One tile of every new kind and field, as a file would write them. */
const augustTiles = () => [
  tile('latency', {
    displayType: 'line',
    select: [{ aggFn: 'avg', valueExpression: 'Duration', where: '', whereLanguage: 'sql' }],
    fitYAxisToData: true,
  }),
  tile(
    'errors',
    {
      displayType: 'number',
      select: count,
      color: 'chart-red',
      colorRules: [
        { operator: 'gt', value: 100, color: 'chart-red', label: 'bad' },
        { operator: 'between', value: [10, 100], color: 'chart-orange' },
        { operator: 'eq', value: 'n/a', color: 'chart-gray' },
      ],
      backgroundChart: { type: 'area', color: 'chart-blue' },
    },
    4,
  ),
  tile(
    'share',
    { displayType: 'pie', select: count, groupBy: 'ServiceName', orderBy: 'count DESC', limit: 5 },
    8,
  ),
  tile(
    'top',
    { displayType: 'bar', select: count, groupBy: 'ServiceName', orderBy: 'count DESC', limit: 10 },
    12,
  ),
  tile(
    'patterns',
    {
      displayType: 'event_patterns',
      select: 'Body',
      where: 'SeverityText:error',
      whereLanguage: 'lucene',
    },
    16,
  ),
  tile(
    'runbooks',
    {
      displayType: 'table',
      select: count,
      groupBy: 'ServiceName',
      onClick: { type: 'external', urlTemplate: 'https://runbooks.example/{{ServiceName}}' },
    },
    20,
  ),
  {
    name: 'sql count',
    x: 0,
    y: 3,
    w: 4,
    h: 3,
    config: {
      configType: 'sql',
      displayType: 'number',
      connectionId: 'c1',
      sqlTemplate: 'SELECT 1',
      color: 'chart-green',
    },
  },
];
const filters = () => [
  {
    type: 'QUERY_EXPRESSION',
    name: 'Service',
    expression: 'ServiceName',
    sourceId: src(),
    appliesToSourceIds: [src()],
  },
];

describe.each(surfaces(() => sb))('dashboards on $name (August 2026)', (s) => {
  it('the new tile kinds and fields and filters[].appliesToSourceIds are stored and read back as sent', async () => {
    const created = await s.call('POST', '/dashboards', {
      name: `${s.name} august`,
      tiles: augustTiles(),
      filters: filters(),
    });
    expect(created.status).toBe(200);
    conforms(facts.dashboard, s.payload(created), 'created');
    const sent = augustTiles();
    s.payload(created).tiles.forEach((t: { config: Record<string, unknown> }, i: number) =>
      expect(t.config, sent[i]?.name).toMatchObject(sent[i].config),
    );
    expect(s.payload(created).filters).toEqual(filters());
    const read = await s.call('GET', `/dashboards/${s.payload(created).id}`);
    expect(s.payload(read)).toEqual(s.payload(created));
  });

  it('a field on a variant that does not take it is dropped, as the service drops it', async () => {
    const res = await s.call('POST', '/dashboards', {
      name: 'stray fields',
      tiles: [
        tile('line', { displayType: 'line', select: count, color: 'chart-red', limit: 3 }),
        tile('stacked', { displayType: 'stacked_bar', select: count, fitYAxisToData: true }),
        {
          name: 'sql line',
          x: 4,
          y: 0,
          w: 4,
          h: 3,
          config: {
            configType: 'sql',
            displayType: 'line',
            connectionId: 'c',
            sqlTemplate: 'SELECT 1',
            color: 'chart-red',
          },
        },
      ],
    });
    conforms(facts.dashboard, s.payload(res), 'created');
    const [line, stacked, sql] = s.payload(res).tiles.map((t: { config: object }) => t.config);
    for (const field of ['color', 'limit']) expect(line).not.toHaveProperty(field);
    expect(stacked).not.toHaveProperty('fitYAxisToData');
    expect(sql).not.toHaveProperty('color');
  });

  const refusals: [string, () => unknown, { path: string; message: string }][] = [
    [
      'a bar tile with two select items',
      () => [tile('b', { displayType: 'bar', select: [...count, ...count] })],
      { path: 'tiles.0.config.select', message: 'Too big: expected array to have exactly 1 items' },
    ],
    [
      'a pie limit of 0',
      () => [tile('p', { displayType: 'pie', select: count, limit: 0 })],
      { path: 'tiles.0.config.limit', message: 'Too small: expected number to be >0' },
    ],
    [
      'an onClick that is not external',
      () => [
        tile('t', {
          displayType: 'table',
          select: count,
          onClick: { type: 'dashboard', urlTemplate: 'x' },
        }),
      ],
      { path: 'tiles.0.config.onClick.type', message: 'Invalid input: expected "external"' },
    ],
    [
      'a backgroundChart of another type',
      () => [
        tile('n', { displayType: 'number', select: count, backgroundChart: { type: 'bars' } }),
      ],
      {
        path: 'tiles.0.config.backgroundChart.type',
        message: 'Invalid option: expected one of "line"|"area"',
      },
    ],
    [
      'an unknown colour-rule operator',
      () => [
        tile('n', {
          displayType: 'number',
          select: count,
          colorRules: [{ operator: 'regex', value: 'x', color: 'c' }],
        }),
      ],
      {
        path: 'tiles.0.config.colorRules.0.operator',
        message:
          "Invalid discriminator value. Expected 'gt' | 'gte' | 'lt' | 'lte' | 'between' | 'eq' | 'neq'",
      },
    ],
  ];

  it.each(refusals)(
    'validate and create refuse %s with the same path and message',
    async (_what, tiles, issue) => {
      const before = sb.store.state.dashboards.length;
      const validated = await s.call('POST', '/dashboards/validate', { name: 'v', tiles: tiles() });
      expect(validated.status).toBe(200);
      conforms(
        s.name === 'api'
          ? facts.observabilityData(facts.validateResult)
          : facts.managementEnvelope(facts.validateResult),
        validated.json,
        'validate',
      );
      expect(s.payload(validated)).toEqual({ valid: false, errors: [issue], normalized: null });
      const created = await s.call('POST', '/dashboards', { name: 'v', tiles: tiles() });
      expect([created.status, s.message(created)]).toEqual([
        400,
        `Body validation failed: ${issue.path}: ${issue.message}`,
      ]);
      expect(sb.store.state.dashboards.length).toBe(before);
    },
  );

  it('validate: unknown sources as the create names them (path ""); a valid body normalized as it would be stored', async () => {
    const unknown = 'fedcba9876543210fedcba98';
    const body = {
      name: 'v',
      tiles: augustTiles(),
      filters: [{ ...filters()[0], appliesToSourceIds: [unknown] }],
    };
    const validated = s.payload(await s.call('POST', '/dashboards/validate', body));
    const created = await s.call('POST', '/dashboards', body);
    expect(validated.errors).toEqual([{ path: '', message: s.message(created) }]);
    expect(s.message(created)).toBe(`Could not find the following source IDs: ${unknown}`);

    const ok = s.payload(
      await s.call('POST', '/dashboards/validate', { name: 'v', tiles: augustTiles() }),
    );
    conforms(facts.validateResult, ok, 'valid');
    expect(ok.valid).toBe(true);
    const stored = s.payload(
      await s.call('POST', '/dashboards', { name: 'v', tiles: augustTiles() }),
    );
    const configs = (d: { tiles: { config: object }[] }) => d.tiles.map((t) => t.config);
    expect(configs(ok.normalized)).toEqual(configs(stored));
  });

  it('`validate` is matched before {dashboardId}: GET on it is an id, and malformed', async () => {
    const res = await s.call('GET', '/dashboards/validate');
    expect(res.status).toBe(400);
  });
});
