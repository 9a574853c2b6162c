/**
 * Two applies on one owner at the same time (the CLI and the Lambda) can both create a
 * dashboard for one key. After its creates, a run lists once and removes an extra only when it
 * can prove it made it: the id its own create answered. It keeps the lowest id (ids grow with
 * creation time), so of two runs only the one whose dashboard came later deletes, and a
 * dashboard copied by hand, tags included, is never deleted: no run created it.
 */
import type { CallOptions } from '../api/http';
import type { ObservabilityBackend } from '../api/observability-backend';
import { isNotFound } from '../api/errors';
import type { Dashboard } from '../schemas';
import { identityTag, ownerOf, ownerTag } from './ownership';

interface MadeHere {
  key: string;
  id: string;
}

interface ExtraRemoved extends MadeHere {
  /** The dashboard kept for the key (made earlier, by another run). */
  kept: string;
}

/** Pure: which of the dashboards this run created another run had already made. */
function extrasMadeHere(
  made: readonly MadeHere[],
  listed: readonly Dashboard[],
  owner: string,
): ExtraRemoved[] {
  const out: ExtraRemoved[] = [];
  for (const mine of made) {
    const tag = identityTag(mine.key);
    const earlier = listed
      .filter((d) => d.id !== mine.id && ownerTag(d.tags) === tag && ownerOf(d.tags) === owner)
      .map((d) => d.id)
      .filter((id) => id < mine.id)
      .sort();
    if (earlier.length > 0) out.push({ ...mine, kept: earlier[0] });
  }
  return out;
}

/** One list, then a delete per extra this run made (its alerts go with it on the service). */
export async function removeExtrasMadeHere(
  made: readonly MadeHere[],
  backend: Pick<ObservabilityBackend, 'listDashboards' | 'deleteDashboard'>,
  owner: string,
  call: CallOptions,
): Promise<ExtraRemoved[]> {
  if (made.length === 0) return [];
  const extras = extrasMadeHere(made, await backend.listDashboards(call), owner);
  for (const extra of extras) {
    try {
      await backend.deleteDashboard(extra.id, call);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return extras;
}
