/**
 * The three alert writes, shared by both executors (provision.ts for events, tile-apply.ts for
 * a dashboard sync): a create made once through the marker (the API has no idempotency), an
 * update (a PUT replaces the whole alert), a delete where "already gone" is done.
 */
import {
  createOnce,
  isNotFound,
  type CallOptions,
  type AlertBackend,
  type CreatedOnce,
} from '../api';
import { alertLinks, type Alert, type CreateAlertBody } from '../schemas';
import { ownerId, parseMarker } from './marker';

type WriteBackend = Pick<AlertBackend, 'createAlert' | 'updateAlert' | 'deleteAlert'>;

export interface AlertWriterOptions {
  backend: WriteBackend;
  /** One alert list (after a create whose outcome is unknown). */
  relist(): Promise<readonly Alert[]>;
  signal?: AbortSignal;
  /** POSTs per alert, re-listing after each unknown outcome. @default 5 */
  createAttempts?: number;
  /** After a timed-out POST, wait this long before re-listing (it may land late). @default 1000 */
  settleMs?: number;
}

export interface CreateHooks {
  /** Before every POST (the first one included); may throw to stop. */
  beforePost?: () => Promise<void>;
  /** A POST whose outcome is unknown (it may land later). */
  onUnknown?: (error: unknown) => void;
  /** POSTs for this alert, when fewer than the writer's (a retry of an earlier attempt). */
  attempts?: number;
}

export class AlertWriter {
  private readonly call: CallOptions;

  constructor(private readonly options: AlertWriterOptions) {
    this.call = options.signal ? { signal: options.signal } : {};
  }

  /** Creates the alert of `owner` (an ownerId) unless a re-list shows that an earlier POST made it. */
  create(
    owner: string,
    body: CreateAlertBody,
    hooks: CreateHooks = {},
  ): Promise<CreatedOnce<Alert>> {
    const { backend, signal } = this.options;
    return createOnce({
      create: async () => {
        await hooks.beforePost?.();
        return backend.createAlert(body, this.call);
      },
      find: async () => findCreated(await this.options.relist(), owner, body),
      attempts: hooks.attempts ?? this.options.createAttempts,
      settleMs: this.options.settleMs,
      onUnknown: (error) => hooks.onUnknown?.(error),
      ...(signal ? { signal } : {}),
    });
  }

  update(alertId: string, body: CreateAlertBody): Promise<Alert> {
    return this.options.backend.updateAlert(alertId, body, this.call);
  }

  /** Already gone counts as deleted: another writer removed it, or its tile went. */
  async remove(alertId: string): Promise<void> {
    try {
      await this.options.backend.deleteAlert(alertId, this.call);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** The alert a POST of `body` made: our marker for `owner`, on the same dashboard or search. */
function findCreated(alerts: readonly Alert[], owner: string, body: CreateAlertBody) {
  return alerts.find((a) => {
    const marker = parseMarker(a.message);
    if (!marker || ownerId(marker.owner) !== owner) return false;
    const links = alertLinks(a);
    return (
      (body.dashboardId === undefined || links.dashboardId === body.dashboardId) &&
      (body.savedSearchId === undefined || links.savedSearchId === body.savedSearchId)
    );
  });
}
