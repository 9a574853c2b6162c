/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- raw JSON bodies of the HTTP API under test */
/**
 * Source CRUD of the current profile on both surfaces (API-FACTS, August 2026): each kind carries
 * the fields it requires (a trace source `defaultTableSelectExpression`), kind `promql`, PUT
 * replaces the whole source.
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

const connection = () => String(sb.store.state.sources[0]?.connection);
const trace = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  kind: 'trace',
  connection: connection(),
  from: { databaseName: 'default', tableName: 'otel_traces' },
  timestampValueExpression: 'Timestamp',
  defaultTableSelectExpression: 'Timestamp, SpanName',
  durationExpression: 'Duration',
  durationPrecision: 9,
  traceIdExpression: 'TraceId',
  spanIdExpression: 'SpanId',
  parentSpanIdExpression: 'ParentSpanId',
  spanNameExpression: 'SpanName',
  spanKindExpression: 'SpanKind',
  ...extra,
});

describe.each(surfaces(() => sb))('sources on $name', (s) => {
  const shape = facts.source(
    s.name === 'api' ? facts.SOURCE_KINDS_API : facts.SOURCE_KINDS_MANAGEMENT,
  );

  it('every listed source carries the fields of its kind; create, get, PUT (whole), delete', async () => {
    const list = await s.call('GET', '/sources');
    expect(Object.keys(list.json)).toEqual(
      s.name === 'api' ? ['data'] : ['status', 'requestId', 'result'],
    );
    for (const source of s.payload(list)) conforms(shape, source, `source ${source.name}`);
    expect(
      s
        .payload(list)
        .map((x: { kind: string }) => x.kind)
        .sort(),
    ).toEqual(['log', 'metric', 'trace']);

    const created = await s.call(
      'POST',
      '/sources',
      trace(`${s.name} traces`, { id: 'ignored', statusCodeExpression: 'StatusCode' }),
    );
    expect(created.status).toBe(200);
    conforms(shape, s.payload(created), 'created');
    const id = s.payload(created).id;
    expect(id).not.toBe('ignored');
    expect(s.payload(await s.call('GET', `/sources/${id}`))).toEqual(s.payload(created));

    const put = await s.call('PUT', `/sources/${id}`, {
      name: `${s.name} prom`,
      kind: 'promql',
      connection: connection(),
      from: { databaseName: 'default' },
    });
    expect(put.status).toBe(200);
    conforms(shape, s.payload(put), 'replaced');
    expect(s.payload(put)).not.toHaveProperty('statusCodeExpression');
    expect(s.payload(put)).toMatchObject({ id, kind: 'promql' });

    expect((await s.call('DELETE', `/sources/${id}`)).status).toBe(200);
    expect((await s.call('GET', `/sources/${id}`)).status).toBe(404);
  });

  it('refuses a trace source without defaultTableSelectExpression, and each missing field of a kind', async () => {
    const { defaultTableSelectExpression: _d, ...noSelect } = trace('t');
    const res = await s.call('POST', '/sources', {
      ...noSelect,
      defaultTableSelectExpression: null,
    });
    expect(res.status).toBe(400);
    conforms(s.name === 'api' ? facts.apiError : facts.managementError, res.json, 'error');
    expect(s.message(res)).toBe(
      'Body validation failed: defaultTableSelectExpression: Invalid input: expected string, received null',
    );
    const log = await s.call('POST', '/sources', {
      name: 'l',
      kind: 'log',
      connection: connection(),
      from: { databaseName: 'd' },
    });
    expect(s.message(log)).toBe(
      'Body validation failed: timestampValueExpression: Invalid input: expected string, received undefined; defaultTableSelectExpression: Invalid input: expected string, received undefined; from.tableName: required for a log source',
    );
    const kind = await s.call('POST', '/sources', { ...trace('k'), kind: 'table' });
    expect(s.message(kind)).toMatch(/^Body validation failed: kind: /);
  });
});
