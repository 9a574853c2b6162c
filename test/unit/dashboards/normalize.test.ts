import { describe, expect, it } from 'vitest';
import {
  comparableQuery,
  filterChanges,
  fingerprint,
  normalizeTile,
  tileChanges,
  tileDiff,
  tileWrite,
} from '../../../lib/dashboards/normalize';
import type { DesiredTile } from '../../../lib/dashboards/types';
import { dashboard, type Tile } from '../../../lib/schemas';

const SRC = '64b0c0ffee0000000000beef';
const box = { x: 0, y: 0, w: 12, h: 4 };

const seriesTile: DesiredTile = {
  name: 'errors',
  ...box,
  asRatio: false,
  series: [
    {
      type: 'time',
      sourceId: SRC,
      dataSource: 'events',
      aggFn: 'count',
      where: 'level:error',
      whereLanguage: 'lucene',
      groupBy: ['service', 'endpoint'],
    },
  ],
  alerts: [],
};

/** The same tile as the current service answers it (config form, extra fields, nulls). */
const configAnswer = dashboard.parse({
  id: 'd1',
  name: 'D',
  tags: null,
  tiles: [
    {
      id: 't1',
      ...box,
      config: {
        name: 'errors',
        displayType: 'line',
        sourceId: SRC,
        select: [
          {
            aggFn: 'count',
            valueExpression: '',
            aggCondition: 'level:error',
            aggConditionLanguage: 'lucene',
            alias: null,
          },
        ],
        groupBy: 'service, endpoint',
        where: '',
        numberFormat: null,
        fillNulls: true,
      },
      containerId: null,
    },
  ],
}).tiles[0];

describe('one comparable tile shape', () => {
  it('reads a config answer with the name inside config, nulls and unknown fields', () => {
    expect(configAnswer.name).toBe('errors');
    expect(comparableQuery(configAnswer).form).toBe('config');
  });

  it('desired series vs observed config: equal', () => {
    expect(tileDiff(normalizeTile(seriesTile), normalizeTile(configAnswer))).toEqual([]);
    expect(tileChanges(seriesTile, configAnswer)).toEqual([]);
  });

  it('desired config vs observed series (the spec service): equal', () => {
    const { series: _s, ...rest } = seriesTile;
    const desired: DesiredTile = {
      ...rest,
      series: [],
      config: {
        displayType: 'line',
        sourceId: SRC,
        select: [{ aggFn: 'count', where: 'level:error', whereLanguage: 'lucene' }],
        groupBy: 'service,endpoint',
      },
    };
    const observed: Tile = {
      id: 't1',
      name: 'errors',
      ...box,
      series: [{ ...seriesTile.series[0], dataSource: undefined }],
    };
    expect(tileChanges(desired, observed)).toEqual([]);
  });

  it('names the changed leaves with old and new values, both directions', () => {
    const edited: DesiredTile = {
      ...seriesTile,
      y: 4,
      series: [
        {
          ...seriesTile.series[0],
          aggFn: 'max',
          field: 'Duration',
          groupBy: ['endpoint', 'service'],
        },
      ],
    };
    expect(tileDiff(normalizeTile(edited), normalizeTile(configAnswer))).toEqual(['y', 'series']);
    expect(tileChanges(edited, configAnswer)).toEqual([
      { path: 'y', from: 0, to: 4 },
      { path: 'series.groupBy', from: ['service', 'endpoint'], to: ['endpoint', 'service'] },
      { path: 'series.select[0].aggFn', from: 'count', to: 'max' },
      { path: 'series.select[0].valueExpression', to: 'Duration' },
    ]);
  });

  it('keeps dataSource significant for a spec series without sourceId', () => {
    const spec = (dataSource: string): Tile => ({
      id: 't',
      name: 'errors',
      ...box,
      series: [{ type: 'time', dataSource, aggFn: 'count' }],
    });
    expect(tileDiff(normalizeTile(spec('events')), normalizeTile(spec('logs')))).toEqual([
      'series',
    ]);
    expect(tileDiff(normalizeTile(spec('events')), normalizeTile(spec('events')))).toEqual([]);
  });

  it('writes the form the file used, with names gone and where defaulted for the current service', () => {
    const named: DesiredTile = {
      ...seriesTile,
      series: [{ type: 'number', sourceId: SRC, aggFn: 'count', whereLanguage: 'sql' }],
    };
    expect(tileWrite(named, 't9')).toEqual({
      id: 't9',
      name: 'errors',
      ...box,
      asRatio: false,
      series: [{ type: 'number', sourceId: SRC, aggFn: 'count', whereLanguage: 'sql', where: '' }],
    });
    const md: DesiredTile = {
      ...seriesTile,
      series: [],
      config: { displayType: 'markdown', markdown: 'hi' },
    };
    expect(tileWrite(md)).toEqual({
      name: 'errors',
      ...box,
      config: { displayType: 'markdown', markdown: 'hi' },
    });
  });

  it('fingerprints a config-form dashboard stably', () => {
    const d = dashboard.parse({ id: 'd', name: 'D', tiles: [configAnswer] });
    expect(fingerprint(d)).toBe(fingerprint(structuredClone(d)));
  });
});

describe('dashboard filters in comparisons', () => {
  const filter = { name: 'Service', expression: 'ServiceName', sourceId: 's1' };
  it('are compared only when declared; applied sources compare as a set', () => {
    expect(filterChanges(undefined, [filter])).toEqual([]);
    const read = {
      ...filter,
      id: 'f1',
      type: 'QUERY_EXPRESSION',
      appliesToSourceIds: ['s3', 's2'],
    };
    expect(filterChanges([{ ...filter, appliesToSourceIds: ['s2', 's3'] }], [read])).toEqual([]);
    expect(filterChanges([{ ...filter, type: 'sql' }], [read])).toEqual([
      { path: 'filters[0].appliesToSourceIds', from: ['s2', 's3'] },
      { path: 'filters[0].type', from: 'QUERY_EXPRESSION', to: 'sql' },
    ]);
    expect(filterChanges([{ ...filter, expression: 'Service' }], [filter])).toEqual([
      { path: 'filters[0].expression', from: 'ServiceName', to: 'Service' },
    ]);
  });

  it('a saved plan goes stale when a filter changes on the service, not when there are none', () => {
    const d = { id: 'd1', name: 'D', tags: [], tiles: [] };
    expect(fingerprint({ ...d, filters: [] })).toBe(fingerprint(d));
    expect(fingerprint({ ...d, filters: [filter] })).not.toBe(
      fingerprint({ ...d, filters: [{ ...filter, expression: 'Host' }] }),
    );
  });
});
