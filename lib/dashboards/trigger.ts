/**
 * What started a sync-dashboards run: an S3 change under the prefix (apply), the schedule
 * (drift repair, or report-only by config), the sync's own continuation (apply what an earlier
 * run left), or something else (ignored).
 */
import { continuationDetail, DASHBOARD_SYNC_CONTINUED } from './continuation';
import { EVENT_SOURCE } from '../events/schemas';

/** `dashboards` -> `dashboards/`; '' stays '' (the whole bucket). */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

export type Trigger =
  | { kind: 'files-changed'; keys: string[] }
  | { kind: 'schedule' }
  | { kind: 'continuation'; round: number; pending: number }
  | { kind: 'ignored'; reason: string };

interface S3Record {
  eventSource?: string;
  s3?: { bucket?: { name?: string }; object?: { key?: string } };
}

export function classifyTrigger(event: unknown, bucket: string, prefix: string): Trigger {
  const root = normalizePrefix(prefix);
  const e = (event ?? {}) as {
    Records?: S3Record[];
    source?: string;
    'detail-type'?: string;
    detail?: { bucket?: { name?: string }; object?: { key?: string } } & Record<string, unknown>;
  };
  // A dot-folder under the prefix holds no dashboard file (the manifest may live there).
  const under = (b: string | undefined, key: string | undefined) =>
    b === bucket &&
    key !== undefined &&
    decodeKey(key).startsWith(root) &&
    !decodeKey(key)
      .slice(root.length)
      .split('/')
      .some((part) => part.startsWith('.'));

  if (Array.isArray(e.Records)) {
    const keys = e.Records.filter(
      (r) => r.eventSource === 'aws:s3' && under(r.s3?.bucket?.name, r.s3?.object?.key),
    ).map((r) => decodeKey(r.s3!.object!.key!));
    return keys.length > 0
      ? { kind: 'files-changed', keys }
      : { kind: 'ignored', reason: `no S3 record under s3://${bucket}/${root}` };
  }
  if (e.source === 'aws.s3') {
    const key = e.detail?.object?.key;
    return under(e.detail?.bucket?.name, key)
      ? { kind: 'files-changed', keys: [decodeKey(key!)] }
      : { kind: 'ignored', reason: `S3 event outside s3://${bucket}/${root}` };
  }
  if (e.source === 'aws.events' || e['detail-type'] === 'Scheduled Event')
    return { kind: 'schedule' };
  if (e.source === EVENT_SOURCE && e['detail-type'] === DASHBOARD_SYNC_CONTINUED) {
    const detail = continuationDetail.safeParse(e.detail);
    return detail.success
      ? { kind: 'continuation', ...detail.data }
      : {
          kind: 'ignored',
          reason: `${DASHBOARD_SYNC_CONTINUED} without a valid round and pending`,
        };
  }
  return { kind: 'ignored', reason: 'not an S3 or schedule event' };
}

/** S3 notifications URL-encode keys, with `+` for spaces. */
function decodeKey(key: string): string {
  return decodeURIComponent(key.replace(/\+/g, ' '));
}
