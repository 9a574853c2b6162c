/**
 * Long lists read item by item: each raw item is validated and replaced by its parsed copy in
 * the parsed body's own array, so the raw list and the parsed list never coexist (the sync's
 * 10,000-dashboard list would otherwise be held twice).
 */
import * as z from 'zod/mini';

const itemLists = new WeakSet<z.core.$ZodType>();

/** Marks an array schema for the HTTP core to read one item at a time; anywhere else it is unchanged. */
export function itemByItem<S extends z.core.$ZodArray>(list: S): S {
  itemLists.add(list);
  return list;
}

/** The item schema of a list marked by itemByItem, if `schema` is one. */
export function itemSchemaOf(schema: z.core.$ZodType): z.core.$ZodType | undefined {
  return itemLists.has(schema) ? (schema as z.core.$ZodArray)._zod.def.element : undefined;
}

export type ListRead =
  | { readonly ok: true; readonly envelope: Record<string, unknown>; readonly items: unknown[] }
  | { readonly ok: false; readonly issues: z.core.$ZodIssue[] };

/**
 * The list under `key` of a parsed answer (`{ result: [...] }`, `{ data: [...] }`), validated in
 * place: each slot ends up holding the parsed item. Issues carry their full path, as a parse of
 * the whole answer would. The envelope's other fields are diagnostics and are not checked.
 */
export function readListInPlace(body: unknown, key: string, item: z.core.$ZodType): ListRead {
  const envelope = body as Record<string, unknown> | null;
  const items = envelope && typeof envelope === 'object' ? envelope[key] : undefined;
  if (!Array.isArray(items)) {
    // Not a list at all: the whole-answer parse says why (and is cheap here).
    const read = z.safeParse(z.looseObject({ [key]: z.array(item) }), body);
    return { ok: false, issues: read.error?.issues ?? [] };
  }
  const issues: z.core.$ZodIssue[] = [];
  for (let i = 0; i < items.length; i++) {
    const read = z.safeParse(item, items[i]);
    if (read.success) items[i] = read.data;
    else
      for (const issue of read.error.issues)
        issues.push({ ...issue, path: [key, i, ...issue.path] });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, envelope: envelope!, items };
}
