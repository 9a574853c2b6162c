import * as z from 'zod';
import { lenient } from './common';

/** `promql` is new in August 2026 on the management API (`/api/v2` had it before). */
const SOURCE_KINDS = ['log', 'trace', 'metric', 'session', 'promql'] as const;

const from = z.looseObject({
  databaseName: lenient(z.string()),
  tableName: z.string().nullish(),
});

/**
 * A source as read: `{ id, name, kind, connection, from, ... }` plus the fields of its kind
 * (expressions, metricTables, ...), which pass through. `id` is no longer declared required.
 */
export const dataSource = z.looseObject({
  id: z.string().optional(),
  name: z.string().nullish(),
  kind: z.string().nullish(),
  connection: lenient(z.string()),
  from: lenient(from),
  defaultTableSelectExpression: z.string().nullish(),
});
export type DataSource = z.infer<typeof dataSource>;

/**
 * Create and update body. PUT replaces the whole source (an `id` in the body is ignored). The
 * kind-specific fields pass as given; the one requirement the contract states is checked here.
 */
export const sourceWrite = z
  .looseObject({
    name: z.string().trim().min(1),
    kind: z.enum(SOURCE_KINDS),
    connection: z.string().min(1),
    from: z.looseObject({ databaseName: z.string().min(1), tableName: z.string().nullish() }),
    defaultTableSelectExpression: z.string().nullish(),
  })
  .superRefine((body, ctx) => {
    if (body.kind === 'trace' && !body.defaultTableSelectExpression)
      ctx.addIssue({
        code: 'custom',
        path: ['defaultTableSelectExpression'],
        message: 'required for a trace source',
      });
  });
export type SourceWrite = z.input<typeof sourceWrite>;
