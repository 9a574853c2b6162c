/**
 * The newest event version seen per owner (a dashboard key or a request key), kept outside the
 * alerts. Markers alone cannot order events: an event that changes nothing writes nothing, so
 * its version would never reach a marker, and a delayed older event could still be applied
 * after it. This store records every version that was accepted, written or not.
 *
 * Versions are ISO times, compared as instants (epoch milliseconds), never as text: `…Z` and
 * `…+00:00` name the same instant.
 */
import { createHash } from 'node:crypto';
import type { ObservabilityMode } from '../config';
import { CloudOpsError, ValidationError } from '../errors';
import { compareVersions } from './marker';

/** Partition key (S) of the DynamoDB version table (versions-dynamo.ts; the CDK imports it). */
export const VERSION_TABLE_KEY = 'pk';

export interface VersionStore {
  readonly label: string;
  /** The newest version recorded for `key`, or undefined. */
  get(key: string): Promise<string | undefined>;
  /**
   * Record `version` for `key` if it is newer than the stored one (or none is stored), in one
   * atomic conditional write, together with what that event declared (replacing the older
   * declaration; none given: none kept). Resolves false, writing nothing, when the stored
   * version is the same or newer.
   */
  advance(key: string, version: string, declaration?: Declaration): Promise<boolean>;
  /**
   * The newest version of `key` with what its event declared. Optional: without it (or for a
   * version recorded without a declaration) a stale redelivery can only remove duplicates.
   */
  newest?(key: string): Promise<Newest | undefined>;
  /**
   * What the last complete apply of `key` wanted (its version and desiredDigest()), with the
   * newest version recorded, from one read. Optional: a store without it makes every event list
   * the alerts.
   */
  settled?(key: string): Promise<SettledRecord | undefined>;
  /** Records a complete apply; ignored unless `version` is still the newest recorded for `key`. */
  markSettled?(key: string, settled: Settled): Promise<void>;
}

/**
 * What the newest event of an owner declared, compact enough for one DynamoDB item (400 KB):
 * its desiredDigest() and a short hash of each owner it declares (applied or blocked). A late
 * create of a superseded event is an owned alert this declaration lacks (provision.ts).
 */
export interface Declaration {
  digest: string;
  /** declaredOwnerHash() of each declared owner, sorted, at most MAX_DECLARED_OWNERS. */
  owners: string[];
}

export interface Newest {
  version: string;
  /** Absent for a version recorded without one (older items, too many owners). */
  declaration?: Declaration;
}

/**
 * Bound of a stored declaration: 10,000 owners × 16 characters ≈ 170 KB, well under
 * DynamoDB's 400 KB item limit (an event, at most 256 KB, cannot declare that many anyway).
 */
export const MAX_DECLARED_OWNERS = 10_000;

/** 96 bits of SHA-256, base64url (16 characters): an owner id of any length in fixed space. */
export function declaredOwnerHash(ownerId: string): string {
  return createHash('sha256').update(ownerId).digest('base64url').slice(0, 16);
}

/** The stored form of a declaration; undefined when it would exceed the bound. */
export function compactDeclaration(
  digest: string,
  ownerIds: readonly string[],
): Declaration | undefined {
  const owners = [...new Set(ownerIds.map(declaredOwnerHash))].sort();
  return owners.length > MAX_DECLARED_OWNERS ? undefined : { digest, owners };
}

/** An apply that finished with every declaration in place (no failure, no unconfirmed create). */
export interface Settled {
  version: string;
  digest: string;
}

/** A settled apply as read back, beside the newest version recorded for its key. */
export interface SettledRecord extends Settled {
  /** The newest version claimed; equal to `version` unless a newer event claimed since. */
  newest: string;
}

/** What an event may do, by its version against the newest one recorded for its owner. */
export type Claim =
  /** Newer than anything seen: recorded, apply it. */
  | { status: 'advanced'; previous: string | undefined }
  /**
   * Same instant as the newest seen: a redelivery of that event (or one from the same instant).
   * Apply it: if an earlier attempt failed after recording its version, this retry must still
   * finish the work; if it succeeded, applying again writes nothing.
   */
  | { status: 'current' }
  /** An older event: skip it, whatever it says. */
  | { status: 'stale'; newest: string };

/** Epoch milliseconds of a version, or a clear error (event schemas already require ISO times). */
export function versionMillis(version: string): number {
  const ms = Date.parse(version);
  if (Number.isNaN(ms)) {
    throw new ValidationError(`version "${version}" is not an ISO time`, {
      source: 'version',
      issues: [`version: expected an ISO time, got "${version}"`],
    });
  }
  return ms;
}

/**
 * Claim `version` for `key`: read first, so a redelivered event costs no write; write only
 * when newer. A lost race (another writer recorded a version in between) is settled by reading
 * again: the store never goes backwards, so this ends after a few rounds at most.
 */
export async function claimVersion(
  store: VersionStore,
  key: string,
  version: string,
  declaration?: Declaration,
): Promise<Claim> {
  versionMillis(version);
  for (let round = 0; round < 5; round += 1) {
    const stored = await store.get(key);
    if (stored !== undefined) {
      const order = compareVersions(version, stored);
      if (order < 0) return { status: 'stale', newest: stored };
      if (order === 0) return { status: 'current' };
    }
    if (await store.advance(key, version, declaration))
      return { status: 'advanced', previous: stored };
  }
  // Only a store that advances and then reports an older value could get here.
  throw new CloudOpsError(`version store ${store.label}: could not settle the version of ${key}`);
}

/** Process-local store: tests, and callers that only need in-process ordering. */
export class MemoryVersionStore implements VersionStore {
  readonly label = 'memory';
  protected readonly versions = new Map<string, string>();
  protected readonly declared = new Map<string, Declaration>();
  protected readonly done = new Map<string, Settled>();

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.versions.get(key));
  }

  advance(key: string, version: string, declaration?: Declaration): Promise<boolean> {
    const stored = this.versions.get(key);
    if (stored !== undefined && versionMillis(version) <= versionMillis(stored)) {
      return Promise.resolve(false);
    }
    this.versions.set(key, version);
    if (declaration) this.declared.set(key, declaration);
    else this.declared.delete(key);
    return Promise.resolve(true);
  }

  newest(key: string): Promise<Newest | undefined> {
    const version = this.versions.get(key);
    if (version === undefined) return Promise.resolve(undefined);
    const declaration = this.declared.get(key);
    return Promise.resolve(declaration ? { version, declaration } : { version });
  }

  settled(key: string): Promise<SettledRecord | undefined> {
    const settled = this.done.get(key);
    const newest = this.versions.get(key);
    return Promise.resolve(settled && newest !== undefined ? { ...settled, newest } : undefined);
  }

  markSettled(key: string, settled: Settled): Promise<void> {
    const stored = this.versions.get(key);
    if (stored !== undefined && compareVersions(stored, settled.version) === 0) {
      this.done.set(key, settled);
    }
    return Promise.resolve();
  }
}

/** The version-store key of an owner within its scope (see versionScope()). */
export function scopedKey(scope: string, owner: string): string {
  return scope ? `${scope}#${owner}` : owner;
}

/**
 * Where the alerts live, as a version-key prefix: the service in managed mode, the
 * observability API in open-source mode. Owners are unique only within that home.
 */
export function versionScope(target: {
  mode: ObservabilityMode;
  serviceId?: string | undefined;
  observabilityUrl?: string | undefined;
}): string {
  return target.mode === 'managed'
    ? `service/${target.serviceId ?? ''}`
    : `api/${target.observabilityUrl ?? ''}`;
}
