import * as z from 'zod/mini';
import { lenient } from '../schemas';

/** The service's page size: default and maximum `limit` of every list described as paginated. */
export const PAGE_LIMIT = 1000;
/** A bound against a server whose `total` never comes within reach. */
const MAX_PAGES = 1000;

/** `meta` of a paged list; read leniently (it only steers paging). */
const listMeta = z.lazy(() =>
  lenient(
    z.looseObject({
      total: lenient(z.number()),
      limit: lenient(z.number()),
      offset: lenient(z.number()),
    }),
  ),
);

/**
 * A list answered either as a plain array or as `{ data, meta }` (the management document
 * describes paging yet declares an array: accept both). Read as `{ data, meta? }`.
 */
export function pagedList<T extends z.ZodMiniType>(item: T) {
  return z.pipe(
    z.transform((raw) => (Array.isArray(raw) ? { data: raw } : raw)),
    z.looseObject({ data: z.array(item), meta: z.optional(z.unknown()) }),
  );
}

export interface Page<T> {
  readonly items: readonly T[];
  /** `meta.total` when the answer had one. */
  readonly total?: number;
  /** `meta.limit` when the answer had one (a server may page shorter than asked). */
  readonly limit?: number;
}

/** A page from its items and its `meta` (any shape; a bad one reads as absent). */
export function toPage<T>(items: readonly T[], meta: unknown): Page<T> {
  const read = listMeta.parse(meta);
  return { items, total: read?.total, limit: read?.limit };
}

/** Reads the page at `offset` (0 = the first). */
type PageReader<T> = (offset: number) => Promise<Page<T>>;

/**
 * Every item of a list, page by page. Another page is asked while `meta.total` is not reached, or,
 * without a total, after a full page (exactly the limit, 1000 by default: possibly truncated).
 * Items already seen (by id) are dropped, and a page that adds none ends the loop, so a server that
 * ignores `offset` cannot loop forever; nor can one whose `total` is never reached (MAX_PAGES).
 */
export async function readAllPages<T extends { id?: unknown }>(read: PageReader<T>): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<unknown>();
  let offset = 0;
  for (let pages = 0; pages < MAX_PAGES; pages += 1) {
    const page = await read(offset);
    const fresh = page.items.filter((item) => item.id === undefined || !seen.has(item.id));
    for (const item of fresh) {
      out.push(item);
      seen.add(item.id);
    }
    offset += page.items.length;
    if (fresh.length === 0) break;
    if (page.total !== undefined) {
      if (offset >= page.total) break;
    } else if (page.items.length < (page.limit ?? PAGE_LIMIT)) break;
  }
  return out;
}
