/** Dashboard files under an S3 prefix (the stack uploads the repo's `dashboards/` there). */
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ValidationError } from '../errors';
import type { DashboardSource } from './load';
import { normalizePrefix } from './trigger';

export function s3Source(
  client: Pick<S3Client, 'send'>,
  bucket: string,
  prefix: string,
): DashboardSource {
  const root = normalizePrefix(prefix);
  return {
    label: `s3://${bucket}/${root}`,
    async list() {
      const files: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: root, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) {
          if (object.Key && !object.Key.endsWith('/')) files.push(object.Key.slice(root.length));
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return files;
    },
    async read(file) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: root + file }));
      if (!object.Body)
        throw new ValidationError(`s3://${bucket}/${root}${file} has no body`, { source: file });
      return object.Body.transformToString('utf-8');
    },
  };
}
