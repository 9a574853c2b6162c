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
 * The settings that shape the plan (owner, mode, service, variables) are its `context`: a
 * manifest of another context is ignored. Alerts are not in the print: a dashboard declaring
 * alerts is skipped only when provision-alerts' version ledger vouches for them (the same trust
 * the ledger path already gives a no-op run), otherwise read and planned.
 *
 * Planning, matching and the next manifest are pure; manifest-store.ts reads and writes it.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { Dashboard } from '../schemas';
import { fingerprint } from './normalize';
import { identityTag, ownerOf, ownerTag } from './ownership';

/** Bump when what a print or an entry means changes: older manifests are then ignored. */
const MANIFEST_FORMAT = 1;

const manifestEntry = z.object({
  /** The object's version when recorded (S3 ETag). */
  version: z.string().optional(),
  /** sha256 of the file's text (hex, 32 chars). */
  digest: z.string(),
  /** The key of the dashboard the file declares. */
  key: z.string(),
  /** The file is for other services (its `services:` leave this one out). */
  elsewhere: z.boolean().optional(),
  id: z.string().optional(),
  /** printOf the dashboard as seen in sync with this file. */
  print: z.string().optional(),
  /** The file declares alerts. */
  alerts: z.boolean().optional(),
});

export const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  context: z.string(),
  files: z.record(z.string(), manifestEntry),
});

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

/** A file the manifest knows, unread this run. */
export interface KnownFile {
  file: string;
  entry: ManifestEntry;
}

export interface ManifestMatch {
  /** Files whose dashboard is as the manifest recorded: no read, no plan. */
  inSync: KnownFile[];
  /** Unchanged files whose dashboard moved (or cannot be vouched for): read and plan them. */
  suspects: KnownFile[];
  /** The listed dashboards the plan still needs (everything but the in-sync ones). */
  rest: Dashboard[];
}

/**
 * Which unchanged files are still in sync, given the one dashboard list. A file is in sync when
 * the owner has exactly one dashboard with its key, with the recorded id and print, and (when
 * it declares alerts) a version ledger vouches for them.
 */
export function matchManifest(
  known: readonly KnownFile[],
  listed: readonly Dashboard[],
  owner: string,
  options: { alertsVouched: boolean },
): ManifestMatch {
  const owned = new Map<string, Dashboard[]>();
  for (const d of listed) {
    const tag = ownerTag(d.tags);
    if (tag && ownerOf(d.tags) === owner) owned.set(tag, [...(owned.get(tag) ?? []), d]);
  }
  const inSync: KnownFile[] = [];
  const suspects: KnownFile[] = [];
  const skipped = new Set<string>();
  for (const k of known) {
    const { key, id, print, alerts } = k.entry;
    if (k.entry.elsewhere) {
      inSync.push(k); // for other services: nothing on this one to compare
      continue;
    }
    const mine = owned.get(identityTag(key)) ?? [];
    const same =
      mine.length === 1 &&
      mine[0].id === id &&
      print !== undefined &&
      printOf(mine[0]) === print &&
      (!alerts || options.alertsVouched);
    if (same) {
      inSync.push(k);
      skipped.add(mine[0].id);
    } else suspects.push(k);
  }
  return { inSync, suspects, rest: listed.filter((d) => !skipped.has(d.id)) };
}

/** What this run learnt of a file it read. */
export interface ReadFile {
  file: string;
  version?: string | undefined;
  digest: string;
  /** The key of the dashboard the file declares. */
  key: string;
  /** For other services: nothing on this one to compare. */
  elsewhere?: boolean;
  alerts?: boolean;
}

/** A dashboard this run saw in sync with its file (alerts included). */
export interface SeenInSync {
  id: string;
  print: string;
}

/**
 * The manifest after a run: in-sync files carried over (with their current version), read
 * files recorded only when their dashboard was seen in sync (`inSync` by key); the rest are
 * left out, so the next run reads them again.
 */
export function nextManifest(
  context: string,
  carried: readonly KnownFile[],
  read: readonly ReadFile[],
  inSync: ReadonlyMap<string, SeenInSync>,
  versionOf: (file: string) => string | undefined,
): Manifest {
  const files: Record<string, ManifestEntry> = {};
  for (const k of carried) {
    const version = versionOf(k.file);
    files[k.file] = { ...k.entry, ...(version !== undefined ? { version } : {}) };
  }
  for (const r of read) {
    const base = {
      ...(r.version !== undefined ? { version: r.version } : {}),
      digest: r.digest,
      key: r.key,
    };
    if (r.elsewhere) {
      files[r.file] = { ...base, elsewhere: true };
      continue;
    }
    const seen = inSync.get(r.key);
    if (seen) files[r.file] = { ...base, ...seen, ...(r.alerts ? { alerts: true } : {}) };
  }
  return { format: MANIFEST_FORMAT, context, files };
}

/** True when `next` records something `previous` did not (worth a write). */
export function manifestChanged(previous: Manifest | undefined, next: Manifest): boolean {
  if (!previous || previous.context !== next.context) return true;
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
