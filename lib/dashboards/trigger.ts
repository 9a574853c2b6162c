/**
 * What started a sync-dashboards run: an S3 change under the prefix (apply), the schedule
 * (drift repair, or report-only by config), or something else (ignored).
 */

/** `dashboards` -> `dashboards/`; '' stays '' (the whole bucket). */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

export type Trigger =
  | { kind: 'files-changed'; keys: string[] }
  | { kind: 'schedule' }
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
    detail?: { bucket?: { name?: string }; object?: { key?: string } };
  };
  const under = (b: string | undefined, key: string | undefined) =>
    b === bucket && key !== undefined && decodeKey(key).startsWith(root);

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
  return { kind: 'ignored', reason: 'not an S3 or schedule event' };
}

/** S3 notifications URL-encode keys, with `+` for spaces. */
function decodeKey(key: string): string {
  return decodeURIComponent(key.replace(/\+/g, ' '));
}
