/**
 * Sources of the current service (August 2026: CRUD on the management API, kind `promql`; `/api/v2`
 * as the open-source router serves it). Each kind requires its own fields; a trace source now
 * requires `defaultTableSelectExpression`.
 */
import * as z from 'zod';
import { notFound } from '../../errors';
import { objectId } from '../../ids';
import type { SourceRow, Store } from '../../store';
import { objectIdString } from './schemas';
import { failure } from './validate';
import type { Issue } from './validate';

export const SOURCE_KINDS = ['log', 'trace', 'metric', 'session', 'promql'] as const;
type Kind = (typeof SOURCE_KINDS)[number];

const expression = z.string().min(1);

/** What every kind needs; the fields of its kind pass through and are stored as given. */
const sourceBase = z.looseObject({
  name: z.string().trim().min(1),
  kind: z.enum(SOURCE_KINDS),
  connection: objectIdString,
  from: z.object({ databaseName: z.string().min(1), tableName: z.string().nullable().optional() }),
});

/** The fields each kind requires beyond the base (the open-source document, plus August's trace rule). */
const REQUIRED: Record<Kind, Record<string, z.ZodType>> = {
  log: { timestampValueExpression: expression, defaultTableSelectExpression: expression },
  trace: {
    timestampValueExpression: expression,
    defaultTableSelectExpression: expression,
    durationExpression: expression,
    durationPrecision: z.number().int().min(0).max(9),
    traceIdExpression: expression,
    spanIdExpression: expression,
    parentSpanIdExpression: expression,
    spanNameExpression: expression,
    spanKindExpression: expression,
  },
  metric: {
    timestampValueExpression: expression,
    resourceAttributesExpression: expression,
    metricTables: z
      .record(z.string(), z.string())
      .refine((t) => Object.keys(t).length > 0, 'at least one metric table'),
  },
  session: { traceSourceId: objectIdString },
  promql: {},
};
/** Kinds whose rows may leave `from.tableName` empty. */
const TABLELESS: readonly Kind[] = ['metric', 'promql'];

export function sourceView(source: SourceRow): Record<string, unknown> {
  return {
    id: source.id,
    name: source.name,
    kind: source.kind,
    connection: source.connection,
    from: source.from,
    // Rows seeded before sources carried their fields: what a metric source always has.
    ...(source.kind === 'metric' && !source.details
      ? {
          metricTables: {
            gauge: 'otel_metrics_gauge',
            sum: 'otel_metrics_sum',
            histogram: 'otel_metrics_histogram',
          },
        }
      : {}),
    ...source.details,
  };
}

export function listSources(store: Store, serviceId: string): SourceRow[] {
  return store.state.sources.filter((s) => s.serviceId === serviceId);
}

function findSource(store: Store, serviceId: string, id: string): SourceRow {
  const row = listSources(store, serviceId).find((s) => s.id === id);
  if (!row) throw notFound('Source not found');
  return row;
}

export const getSource = findSource;

/** The row a body describes; an `id` in the body is ignored (PUT replaces the whole source). */
function parseSource(body: unknown): Omit<SourceRow, 'id' | 'serviceId'> {
  const base = sourceBase.safeParse(body);
  if (!base.success)
    throw failure(
      'Body',
      base.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  const { name, kind, connection, from, id: _ignored, ...details } = base.data;
  const issues: Issue[] = [];
  for (const [field, schema] of Object.entries(REQUIRED[kind])) {
    const checked = schema.safeParse(details[field]);
    if (!checked.success)
      issues.push({ path: field, message: checked.error.issues[0]?.message ?? 'Invalid input' });
  }
  if (!TABLELESS.includes(kind) && !from.tableName)
    issues.push({ path: 'from.tableName', message: `required for a ${kind} source` });
  if (issues.length > 0) throw failure('Body', issues);
  return {
    name,
    kind,
    connection,
    from: { databaseName: from.databaseName, tableName: from.tableName ?? null },
    details,
  };
}

export function createSource(
  store: Store,
  serviceId: string,
  body: unknown,
  now: number,
): SourceRow {
  const row: SourceRow = { id: objectId(now), serviceId, ...parseSource(body) };
  store.state.sources.push(row);
  store.changed();
  return row;
}

export function updateSource(
  store: Store,
  serviceId: string,
  id: string,
  body: unknown,
): SourceRow {
  const row = findSource(store, serviceId, id);
  const next = parseSource(body);
  delete row.details;
  Object.assign(row, next);
  store.changed();
  return row;
}

/**
 * Deleting a source that dashboards or saved searches still read is not described anywhere
 * (UNVERIFIABLE): the tolerant choice is to allow it, as the open-source router does.
 */
export function deleteSource(store: Store, serviceId: string, id: string): void {
  const row = findSource(store, serviceId, id);
  store.state.sources = store.state.sources.filter((s) => s !== row);
  store.changed();
}
