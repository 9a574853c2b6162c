/**
 * Dashboard files under an S3 prefix (the stack uploads the repo's `dashboards/` there). The
 * listing also gives each object's ETag and size: the ETag is the file's version (a changed
 * object has a new ETag), so a run that kept the last run's ETags reads only what changed.
 */
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ValidationError } from '../errors';
import type { DashboardSource } from './load';
import { normalizePrefix } from './trigger';

/** A DashboardSource that also says how many ListObjectsV2 pages its last listing took. */
export interface S3DashboardSource extends DashboardSource {
  /** Pages of the last list() (S3 returns at most 1,000 keys a page). */
  listPages(): number;
}

export function s3Source(
  client: Pick<S3Client, 'send'>,
  bucket: string,
  prefix: string,
): S3DashboardSource {
  const root = normalizePrefix(prefix);
  // From the last listing: file -> ETag and bytes (a few dozen bytes per file).
  let listed = new Map<string, { etag?: string; bytes?: number }>();
  let pages = 0;
  return {
    label: `s3://${bucket}/${root}`,
    async list() {
      const files = new Map<string, { etag?: string; bytes?: number }>();
      let token: string | undefined;
      pages = 0;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: root, ContinuationToken: token }),
        );
        pages += 1;
        for (const object of page.Contents ?? []) {
          if (!object.Key || object.Key.endsWith('/')) continue;
          files.set(object.Key.slice(root.length), { etag: object.ETag, bytes: object.Size });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      listed = files;
      return [...files.keys()];
    },
    async read(file) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: root + file }));
      if (!object.Body)
        throw new ValidationError(`s3://${bucket}/${root}${file} has no body`, { source: file });
      return object.Body.transformToString('utf-8');
    },
    size: (file) => Promise.resolve(listed.get(file)?.bytes),
    version: (file) => listed.get(file)?.etag,
    listPages: () => pages,
  };
}
