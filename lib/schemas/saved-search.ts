import * as z from 'zod/mini';
import { lenient } from './common';

const WHERE_LANGUAGES = ['lucene', 'sql'] as const;

/** `<column> IN (...)`, the one filter form a saved-search write takes. */
const IN_CONDITION = /^\s*\S.*?\s+IN\s*\(.*\)\s*$/is;

/**
 * A saved search as read. Stored filters may be of type `lucene` or `sql_ast` besides `sql`
 * (older writers), so a filter is read as any object.
 */
export const savedSearch = /* @__PURE__ */ z.lazy(() =>
  z.looseObject({
    id: z.string().check(z.minLength(1)),
    name: z.nullish(z.string()),
    sourceId: lenient(z.string()),
    select: lenient(z.string()),
    where: lenient(z.string()),
    whereLanguage: lenient(z.string()),
    orderBy: lenient(z.string()),
    tags: lenient(z.array(z.string())),
    filters: lenient(z.array(z.looseObject({ type: lenient(z.string()) }))),
    createdAt: lenient(z.string()),
    updatedAt: lenient(z.string()),
  }),
);
export type SavedSearch = z.infer<typeof savedSearch>;

const savedSearchFilterWrite = /* @__PURE__ */ z.lazy(() =>
  z.object({
    type: z.optional(z.literal('sql')),
    condition: z.string().check(z.regex(IN_CONDITION, 'must have the form <column> IN (...)')),
  }),
);

/** Create and update body: PUT is a full replace, so an omitted field is reset, not kept. */
export const savedSearchWrite = /* @__PURE__ */ z.lazy(() =>
  z.object({
    name: z.string().check(z.trim(), z.minLength(1)),
    sourceId: z.string().check(z.minLength(1)),
    select: z.optional(z.string()),
    where: z.optional(z.string()),
    whereLanguage: z.optional(z.enum(WHERE_LANGUAGES)),
    orderBy: z.optional(z.string()),
    tags: z.optional(z.array(z.string())),
    filters: z.optional(z.array(savedSearchFilterWrite)),
  }),
);
export type SavedSearchWrite = z.input<typeof savedSearchWrite>;
