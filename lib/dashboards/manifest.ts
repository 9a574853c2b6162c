/**
 * The sync's manifest: per file, what a run saw in sync. A file's version (S3 ETag) and digest,
 * the dashboard it declares (key, id) and that dashboard's print: a digest of the dashboard as
 * the service showed it, in the planner's comparable form (normalize.ts fingerprint). A later
 * run whose listing shows the same version, and whose one dashboard list shows the same print
 * under the same id, knows the plan would say "unchanged" without reading the file.
 *
 * Why it never hides a change:
 * - a changed object has a new ETag: it is read (the digest spares the parse of a re-upload);
 * - a change on the service changes the print: the file is read and planned;
 * - a file gone leaves its dashboard unclaimed: pruned (or noted) as before;
 * - an entry is written only for what this run saw in sync, so a crash before the manifest is
 *   written costs the next run some reads, never a miss; an old entry stays true as long as
 *   its version and print match (it says "this file and that state agree", not "nothing moved").
 * - webhooks and saved searches are not vouched for (their files are always read), but the
 *   manifest says which of those kinds may still have objects of this owner on the service
 *   (`kinds`): a run lists a kind the files no longer declare only then, to prune it, so a
 *   bucket of dashboards alone costs one list. Absent (an older manifest): every kind is listed.
 * The settings that shape the plan (owner, mode, service, variables) are its `context`: a
 * manifest of another context is ignored. Alerts are not in the print: a dashboard declaring
 * alerts is skipped only when provision-alerts' version ledger vouches for them (the same trust
 * the ledger path already gives a no-op run), otherwise read and planned.
 *
 * Planning, matching and the next manifest are pure; manifest-store.ts reads and writes it.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { stringRecord } from '../schemas/builders';
import type { Dashboard } from '../schemas';
import { fingerprint } from './normalize';
import { OBJECT_KINDS, type ObjectKind } from './objects-plan';
import { identityTag, ownerOf, ownerTag } from './ownership';

/** Bump when what a print or an entry means changes: older manifests are then ignored. */
const MANIFEST_FORMAT = 1;

const manifestEntry = z.lazy(() =>
  z.object({
    /** The object's version when recorded (S3 ETag). */
    version: z.optional(z.string()),
    /** sha256 of the file's text (hex, 32 chars). */
    digest: z.string(),
    /** The key of the dashboard the file declares. */
    key: z.string(),
    /** The file is for other services (its `services:` leave this one out). */
    elsewhere: z.optional(z.boolean()),
    id: z.optional(z.string()),
    /** printOf the dashboard as seen in sync with this file. */
    print: z.optional(z.string()),
    /** The file declares alerts. */
    alerts: z.optional(z.boolean()),
  }),
);

export const manifestSchema = z.lazy(() =>
  z.object({
    format: z.literal(MANIFEST_FORMAT),
    context: z.string(),
    files: stringRecord(z.string(), manifestEntry),
    /** The kinds of which this owner may have objects on the service; absent: not known. */
    kinds: z.optional(z.array(z.enum(OBJECT_KINDS))),
  }),
);

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestEntry = z.infer<typeof manifestEntry>;

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);

/** The digest a manifest keeps of a file's text. */
export const textDigest = sha;

/** The print of a dashboard as the service shows it (tile ids included). */
export function printOf(d: Dashboard): string {
  return sha(fingerprint(d));
}

export interface ManifestContextParts {
  owner: string;
  /** Where the dashboards live: mode, service, URL (the alert version scope says it all). */
  target: string;
  vars?: Readonly<Record<string, string>> | undefined;
}

/** What the plan depends on besides the file and the service's dashboard. */
export function manifestContext(parts: ManifestContextParts): string {
  const vars = Object.entries(parts.vars ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha(JSON.stringify([MANIFEST_FORMAT, parts.owner, parts.target, vars]));
}

/** The previous manifest if it was made in this context (else nothing is known). */
export function usableManifest(
  manifest: Manifest | undefined,
  context: string,
): Manifest | undefined {
  return manifest?.context === context ? manifest : undefined;
}

/**
 * The service's dashboards as one run found them, by owner and key, for vouching: a file's
 * dashboard is taken out once vouched in sync, and what is left (changed, duplicated, orphaned,
 * not ours) is what the plan still needs.
 */
export class DashboardIndex {
  private readonly owned = new Map<string, Dashboard[]>();
  private readonly others: Dashboard[] = [];

  constructor(listed: readonly Dashboard[], owner: string) {
    for (const d of listed) {
      const tag = ownerTag(d.tags);
      if (tag && ownerOf(d.tags) === owner)
        this.owned.set(tag, [...(this.owned.get(tag) ?? []), d]);
      else this.others.push(d);
    }
  }

  /** The owner's one dashboard with this key (none, or several: undefined). */
  only(key: string): Dashboard | undefined {
    const mine = this.owned.get(identityTag(key));
    return mine?.length === 1 ? mine[0] : undefined;
  }

  /** Takes the key's dashboard out: it is in sync and needs no plan. */
  vouched(key: string): void {
    this.owned.delete(identityTag(key));
  }

  /** The dashboards not vouched for. */
  rest(): Dashboard[] {
    return [...this.others, ...[...this.owned.values()].flat()];
  }
}

/**
 * A file the manifest knows, unchanged: in sync when the owner has exactly one dashboard with
 * its key, with the recorded id and print, and (when it declares alerts) a version ledger
 * vouches for them. Takes the dashboard out of the index when so.
 */
export function vouchKnown(
  entry: ManifestEntry,
  index: DashboardIndex,
  alertsVouched: boolean,
): SeenInSync | undefined {
  const mine = index.only(entry.key);
  if (!mine || mine.id !== entry.id || entry.print === undefined) return undefined;
  if (entry.alerts && !alertsVouched) return undefined;
  if (printOf(mine) !== entry.print) return undefined;
  index.vouched(entry.key);
  return { id: mine.id, print: entry.print };
}

/** What this run learnt of a file it read and kept for planning. */
export interface ReadFile {
  file: string;
  version?: string | undefined;
  digest: string;
  /** The key of the dashboard the file declares. */
  key: string;
  alerts?: boolean;
}

/** A dashboard seen in sync with its file (alerts included). */
export interface SeenInSync {
  id: string;
  print: string;
}

/**
 * The manifest after a run: the files in sync carried as they are, the files planned this run
 * recorded only when their dashboard was seen in sync afterwards (`seen` by key); the rest are
 * left out, so the next run reads them again.
 */
export function nextManifest(
  context: string,
  inSync: readonly { file: string; entry: ManifestEntry }[],
  read: readonly ReadFile[],
  seen: ReadonlyMap<string, SeenInSync>,
  kinds?: readonly ObjectKind[],
): Manifest {
  const files: Record<string, ManifestEntry> = {};
  for (const k of inSync) files[k.file] = k.entry;
  for (const { file, alerts, ...entry } of read) {
    const after = seen.get(entry.key);
    if (after) files[file] = { ...entry, ...after, ...(alerts ? { alerts } : {}) };
  }
  return { format: MANIFEST_FORMAT, context, files, ...(kinds ? { kinds: [...kinds] } : {}) };
}

/** What one run knows of a kind beside dashboards. */
export interface KindSeen {
  /** The files declare some. */
  declared: boolean;
  /** Its list was read this run. */
  listed: boolean;
  /** Listed, and an owned one was left on the service (a prune not made, failed or not reached). */
  left: boolean;
}

/**
 * The kinds that may still have owned objects after a run: declared, or left behind; a kind
 * not listed keeps what the last manifest said. Undefined while any kind is not known.
 */
export function kindsAfter(
  previous: readonly ObjectKind[] | undefined,
  seen: Readonly<Record<ObjectKind, KindSeen>>,
): ObjectKind[] | undefined {
  const kinds: ObjectKind[] = [];
  for (const kind of OBJECT_KINDS) {
    const s = seen[kind];
    if (s.declared || (s.listed && s.left)) kinds.push(kind);
    else if (s.listed) continue;
    else if (!previous) return undefined;
    else if (previous.includes(kind)) kinds.push(kind);
  }
  return kinds;
}

/**
 * The kinds a run lists although its files declare none (to prune them): those the last
 * manifest says may have owned objects; every kind when there is no such manifest.
 */
export function kindsToList(previous: Manifest | undefined): ObjectKind[] {
  return previous?.kinds ? [...previous.kinds] : [...OBJECT_KINDS];
}

/** True when `next` records something `previous` did not (worth a write). */
export function manifestChanged(previous: Manifest | undefined, next: Manifest): boolean {
  if (!previous || previous.context !== next.context) return true;
  if ((previous.kinds ?? []).join() !== (next.kinds ?? []).join()) return true;
  if ((previous.kinds === undefined) !== (next.kinds === undefined)) return true;
  const before = Object.keys(previous.files);
  if (before.length !== Object.keys(next.files).length) return true;
  return before.some((file) => {
    const a = previous.files[file];
    const b = next.files[file];
    return (
      !b ||
      a.version !== b.version ||
      a.digest !== b.digest ||
      a.key !== b.key ||
      a.elsewhere !== b.elsewhere ||
      a.id !== b.id ||
      a.print !== b.print ||
      a.alerts !== b.alerts
    );
  });
}
