import * as z from 'zod/mini';
import { lenient } from './common';

/** `promql` is new in August 2026 on the management API (`/api/v2` had it before). */
const SOURCE_KINDS = ['log', 'trace', 'metric', 'session', 'promql'] as const;

const from = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    databaseName: lenient(z.string()),
    tableName: z.nullish(z.string()),
  }),
);

/**
 * A source as read: `{ id, name, kind, connection, from, ... }` plus the fields of its kind
 * (expressions, metricTables, ...), which pass through. `id` is no longer declared required.
 */
export const dataSource = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    id: z.optional(z.string()),
    name: z.nullish(z.string()),
    kind: z.nullish(z.string()),
    connection: lenient(z.string()),
    from: lenient(from),
    defaultTableSelectExpression: z.nullish(z.string()),
  }),
);
export type DataSource = z.infer<typeof dataSource>;

/**
 * Create and update body. PUT replaces the whole source (an `id` in the body is ignored). The
 * kind-specific fields pass as given; the one requirement the contract states is checked here.
 */
export const sourceWrite = /* @__PURE__ */ z.lazy(() =>
  z
    .looseObject({
      name: z.string().check(z.trim(), z.minLength(1)),
      kind: z.enum(SOURCE_KINDS),
      connection: z.string().check(z.minLength(1)),
      from: z.looseObject({
        databaseName: z.string().check(z.minLength(1)),
        tableName: z.nullish(z.string()),
      }),
      defaultTableSelectExpression: z.nullish(z.string()),
    })
    .check(
      z.superRefine((body, ctx) => {
        if (body.kind === 'trace' && !body.defaultTableSelectExpression)
          ctx.addIssue({
            code: 'custom',
            path: ['defaultTableSelectExpression'],
            message: 'required for a trace source',
          });
      }),
    ),
);
export type SourceWrite = z.input<typeof sourceWrite>;
