import * as z from 'zod';
import { lenient } from './common';

const WHERE_LANGUAGES = ['lucene', 'sql'] as const;

/** `<column> IN (...)`, the one filter form a saved-search write takes. */
const IN_CONDITION = /^\s*\S.*?\s+IN\s*\(.*\)\s*$/is;

/**
 * A saved search as read. Stored filters may be of type `lucene` or `sql_ast` besides `sql`
 * (older writers), so a filter is read as any object.
 */
export const savedSearch = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  sourceId: lenient(z.string()),
  select: lenient(z.string()),
  where: lenient(z.string()),
  whereLanguage: lenient(z.string()),
  orderBy: lenient(z.string()),
  tags: lenient(z.array(z.string())),
  filters: lenient(z.array(z.looseObject({ type: lenient(z.string()) }))),
  createdAt: lenient(z.string()),
  updatedAt: lenient(z.string()),
});
export type SavedSearch = z.infer<typeof savedSearch>;

const savedSearchFilterWrite = z.object({
  type: z.literal('sql').optional(),
  condition: z.string().regex(IN_CONDITION, 'must have the form <column> IN (...)'),
});

/** Create and update body: PUT is a full replace, so an omitted field is reset, not kept. */
export const savedSearchWrite = z.object({
  name: z.string().trim().min(1),
  sourceId: z.string().min(1),
  select: z.string().optional(),
  where: z.string().optional(),
  whereLanguage: z.enum(WHERE_LANGUAGES).optional(),
  orderBy: z.string().optional(),
  tags: z.array(z.string()).optional(),
  filters: z.array(savedSearchFilterWrite).optional(),
});
export type SavedSearchWrite = z.input<typeof savedSearchWrite>;
