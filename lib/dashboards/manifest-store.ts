/**
 * Where the deployed sync keeps its manifest: one JSON object in the dashboards bucket, outside
 * the files' prefix (under a dot-folder, which is never a dashboard file). It is a cache of what
 * was seen in sync: when it cannot be read (missing, unreadable, another format) the run reads
 * every file, and when it cannot be written the next run does; neither fails a sync.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Logger } from '../log';
import { manifestSchema, type Manifest } from './manifest';

export interface ManifestStore {
  /** `s3://bucket/key`, for logs. */
  readonly label: string;
  read(): Promise<Manifest | undefined>;
  write(manifest: Manifest): Promise<void>;
}

/** S3 answers 404 for a missing key when the reader may list it, else 403. */
const ABSENT = new Set(['NoSuchKey', 'NotFound']);

export function s3ManifestStore(
  client: Pick<S3Client, 'send'>,
  bucket: string,
  key: string,
  logger: Logger,
): ManifestStore {
  const label = `s3://${bucket}/${key}`;
  return {
    label,
    async read() {
      let text: string;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        text = (await object.Body?.transformToString('utf-8')) ?? '';
      } catch (error) {
        const name = (error as { name?: string }).name ?? '';
        if (!ABSENT.has(name))
          logger.warn('dashboard manifest not readable: every file is read', {
            manifest: label,
            error: name || String(error),
          });
        return undefined;
      }
      const parsed = manifestSchema.safeParse(safeJson(text));
      if (!parsed.success) {
        logger.warn('dashboard manifest of another format: every file is read', {
          manifest: label,
        });
        return undefined;
      }
      return parsed.data;
    },
    async write(manifest) {
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: JSON.stringify(manifest),
            ContentType: 'application/json',
          }),
        );
      } catch (error) {
        logger.warn('dashboard manifest not written: the next run reads the files again', {
          manifest: label,
          error: (error as { name?: string }).name ?? String(error),
        });
      }
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
