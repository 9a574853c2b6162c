/**
 * Saved searches of the current service (August 2026: CRUD on the management API; `/api/v2` as
 * the open-source router serves it). Deleting one deletes every alert on it.
 */
import * as z from 'zod';
import { badRequest, notFound } from '../../errors';
import { objectId } from '../../ids';
import type { SavedSearchRow, Store } from '../../store';
import { deleteAlertRows } from './rows';
import { objectIdString } from './schemas';
import { parseOr400 } from './validate';

const IN_CONDITION = /^\s*\S.*?\s+IN\s*\(.*\)\s*$/is;

/** What a write stores for an omitted field; a row from an older state file shows them too. */
const WRITE_DEFAULTS = { select: '', where: '', whereLanguage: 'lucene', tags: [] };

const savedSearchBody = z.object({
  name: z.string().trim().min(1),
  sourceId: objectIdString,
  // An omitted field is stored as its default (WRITE_DEFAULTS; PUT is a full replace).
  select: z.string().default(WRITE_DEFAULTS.select),
  where: z.string().default(WRITE_DEFAULTS.where),
  whereLanguage: z.enum(['lucene', 'sql']).default('lucene'),
  orderBy: z.string().optional(),
  tags: z.array(z.string().max(32)).max(50).default([]),
  filters: z
    .array(
      z.object({
        type: z.literal('sql').default('sql'),
        condition: z
          .string()
          .max(10_000)
          .regex(IN_CONDITION, 'must be in the form <column> IN (...)'),
      }),
    )
    .optional(),
});

const rowsOf = (store: Store): SavedSearchRow[] => (store.state.savedSearches ??= []);

/** A search as both APIs show it. */
export function savedSearchView(store: Store, row: SavedSearchRow): Record<string, unknown> {
  const { serviceId, ...stored } = row;
  return { ...WRITE_DEFAULTS, ...stored, teamId: store.service(serviceId)?.team };
}

export function listSavedSearches(store: Store, serviceId: string): SavedSearchRow[] {
  return rowsOf(store).filter((s) => s.serviceId === serviceId);
}

export function findSavedSearch(store: Store, serviceId: string, id: string): SavedSearchRow {
  const row = listSavedSearches(store, serviceId).find((s) => s.id === id);
  if (!row) throw notFound('Saved search not found');
  return row;
}

/** Every field a write sets: PUT is a full replace, so an omitted one is reset. */
function fieldsOf(store: Store, serviceId: string, body: unknown) {
  const input = parseOr400('Body', savedSearchBody, body);
  if (!store.state.sources.some((s) => s.id === input.sourceId && s.serviceId === serviceId))
    throw badRequest('sourceId must be an existing source id');
  return input;
}

export function createSavedSearch(store: Store, serviceId: string, body: unknown, now: number) {
  const at = new Date(now).toISOString();
  const row: SavedSearchRow = {
    id: objectId(now),
    serviceId,
    ...fieldsOf(store, serviceId, body),
    createdAt: at,
    updatedAt: at,
  };
  rowsOf(store).push(row);
  store.changed();
  return row;
}

export function updateSavedSearch(
  store: Store,
  serviceId: string,
  id: string,
  body: unknown,
  now: number,
) {
  const row = findSavedSearch(store, serviceId, id);
  const fields = fieldsOf(store, serviceId, body);
  // The two optional fields go unless given again (a full replace).
  delete row.orderBy;
  delete row.filters;
  Object.assign(row, fields, { updatedAt: new Date(now).toISOString() });
  store.changed();
  return row;
}

export function deleteSavedSearch(store: Store, serviceId: string, id: string): void {
  const row = findSavedSearch(store, serviceId, id);
  store.state.savedSearches = rowsOf(store).filter((s) => s !== row);
  deleteAlertRows(store.state, (a) => a.savedSearchId === row.id);
  store.changed();
}
