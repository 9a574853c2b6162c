/**
 * The alert version store as a dashboard sync sees it. The deployed sync writes a dashboard's
 * tile alerts itself and then sends its `Dashboard Synced` event; provision-alerts applies the
 * same event later. Both record their work in one store (versions.ts), keyed as
 * provision-alerts keys it, so:
 * - a dashboard whose event asks for what provision-alerts last applied completely needs no
 *   alert list (a no-op sync costs one request);
 * - the sync claims the version before writing, as provision-alerts does, so an older event
 *   still queued stops instead of undoing the writes;
 * - after a complete write it records the event as settled, so provision-alerts skips it.
 */
import { parseEvent } from '../events/parse';
import { alertEvent, type DashboardSyncedEvent } from '../events/schemas';
import { dashboardVersionOwner, desiredDigest, desiredFromEvent } from './desired';
import { claimVersion, scopedKey, type VersionStore } from './versions';

export class TileAlertLedger {
  constructor(
    private readonly store: VersionStore,
    /** provision-alerts' key scope (versionScope()). */
    private readonly scope: string,
  ) {}

  /** True when the event wants what was last settled, and no newer event claimed since. */
  async settled(event: DashboardSyncedEvent): Promise<boolean> {
    const { key, digest } = this.asProvisioned(event);
    const settled = await this.store.settled?.(key);
    return settled !== undefined && settled.version === settled.newest && settled.digest === digest;
  }

  /** Claims `version` for the dashboard's alerts; false when a newer event owns them. */
  async claim(dashboardKey: string, version: string): Promise<boolean> {
    const key = scopedKey(this.scope, dashboardVersionOwner(dashboardKey));
    const claim = await claimVersion(this.store, key, version);
    return claim.status !== 'stale';
  }

  /** Records the event's declarations as completely applied. */
  async settle(event: DashboardSyncedEvent): Promise<void> {
    const { key, digest } = this.asProvisioned(event);
    await this.store.markSettled?.(key, { version: event.detail.syncedAt, digest });
  }

  /** The key and digest provision-alerts records for this event. */
  private asProvisioned(event: DashboardSyncedEvent): { key: string; digest: string } {
    // Parsed as provision-alerts parses it (after the EventBridge round trip), so the digest
    // is the one it records.
    const parsed = parseEvent(alertEvent, JSON.stringify(event), 'Dashboard Synced event');
    return {
      key: scopedKey(this.scope, dashboardVersionOwner(event.detail.dashboardKey)),
      digest: desiredDigest(desiredFromEvent(parsed)),
    };
  }
}
