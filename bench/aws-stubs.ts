/**
 * The AWS services the sandbox does not serve, as far as the functions use them on a run:
 * S3 (ListObjectsV2 in pages of at most 1,000 keys with each object's ETag, GetObject, PutObject;
 * path-style, which the SDK uses for an IP endpoint), EventBridge PutEvents and SNS Publish /
 * PublishBatch. One loopback server; every PutEvents / Publish body is kept, so the leak check can
 * scan what the functions emitted.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AwsStubs {
  url: string;
  /** bucket -> key -> text */
  objects: Map<string, Map<string, string>>;
  /** `S3 ListObjectsV2`, `S3 GetObject <key>`, `EventBridge PutEvents`, ... in arrival order. */
  calls: string[];
  /** Answer the next `count` S3 PutObject calls with 500 (a write lost). */
  failPuts(count: number): void;
  /** Raw bodies of PutEvents / Publish (what the functions emitted). */
  emitted: string[];
  close(): Promise<void>;
}

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** S3's ETag of a single-part upload: the quoted MD5 of the bytes. */
const etagOf = (text: string) => `"${createHash('md5').update(text, 'utf8').digest('hex')}"`;

/** ListObjectsV2's page size when the request names none, and its maximum. */
const S3_MAX_KEYS = 1000;

export interface AwsStubOptions {
  /** Keys per ListObjectsV2 page (S3's is 1,000), smaller to exercise paging in a test. */
  readonly s3PageSize?: number;
}

export async function startAwsStubs(options: AwsStubOptions = {}): Promise<AwsStubs> {
  const objects = new Map<string, Map<string, string>>();
  const calls: string[] = [];
  const emitted: string[] = [];
  let failingPuts = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const target = req.headers['x-amz-target'];
    const send = (status: number, type: string, text: string) => {
      res.writeHead(status, { 'content-type': type, 'x-amzn-requestid': randomUUID() });
      res.end(text);
    };
    if (target === 'AWSEvents.PutEvents') {
      calls.push('EventBridge PutEvents');
      emitted.push(body);
      const entries = (JSON.parse(body) as { Entries?: unknown[] }).Entries ?? [];
      return send(
        200,
        'application/x-amz-json-1.1',
        JSON.stringify({
          FailedEntryCount: 0,
          Entries: entries.map(() => ({ EventId: randomUUID() })),
        }),
      );
    }
    if (typeof target === 'string' && target.endsWith('.PublishBatch')) {
      calls.push('SNS PublishBatch');
      emitted.push(body);
      const entries =
        (JSON.parse(body) as { PublishBatchRequestEntries?: { Id: string }[] })
          .PublishBatchRequestEntries ?? [];
      return send(
        200,
        'application/x-amz-json-1.0',
        JSON.stringify({
          Successful: entries.map((e) => ({ Id: e.Id, MessageId: randomUUID() })),
          Failed: [],
        }),
      );
    }
    if (body.startsWith('Action=PublishBatch')) {
      calls.push('SNS PublishBatch');
      emitted.push(body);
      const ids = [...new URLSearchParams(body).entries()]
        .filter(([k]) => /^PublishBatchRequestEntries\.member\.\d+\.Id$/.test(k))
        .map(([, v]) => v);
      const members = ids
        .map(
          (id) =>
            `<member><Id>${xmlEscape(id)}</Id><MessageId>${randomUUID()}</MessageId></member>`,
        )
        .join('');
      return send(
        200,
        'text/xml',
        `<PublishBatchResponse xmlns="https://sns.amazonaws.com/doc/2010-03-31/"><PublishBatchResult><Successful>${members}</Successful><Failed/></PublishBatchResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishBatchResponse>`,
      );
    }
    if (typeof target === 'string' && target.endsWith('.Publish')) {
      calls.push('SNS Publish');
      emitted.push(body);
      return send(200, 'application/x-amz-json-1.0', JSON.stringify({ MessageId: randomUUID() }));
    }
    if (body.startsWith('Action=Publish')) {
      calls.push('SNS Publish');
      emitted.push(body);
      return send(
        200,
        'text/xml',
        `<PublishResponse xmlns="https://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
      );
    }
    // S3, path style: /bucket?list-type=2&prefix=... or /bucket/key
    const url = new URL(req.url ?? '/', 'http://stub');
    const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
    const key = rest.map(decodeURIComponent).join('/');
    const files = objects.get(decodeURIComponent(bucket));
    if (req.method === 'GET' && url.searchParams.get('list-type') === '2' && key === '') {
      calls.push('S3 ListObjectsV2');
      const pageSize = options.s3PageSize ?? S3_MAX_KEYS;
      return send(200, 'application/xml', listPage(bucket, files, url.searchParams, pageSize));
    }
    if (req.method === 'PUT' && files && key !== '') {
      calls.push(`S3 PutObject ${key}`);
      if (failingPuts > 0) {
        failingPuts -= 1;
        return send(
          500,
          'application/xml',
          s3Error('InternalError', 'We encountered an internal error.'),
        );
      }
      files.set(key, body);
      res.setHeader('etag', etagOf(body));
      return send(200, 'application/xml', '');
    }
    if (req.method === 'GET' && files) {
      calls.push(`S3 GetObject ${key}`);
      const text = files.get(key);
      if (text !== undefined) {
        res.setHeader('etag', etagOf(text));
        return send(200, 'application/octet-stream', text);
      }
      return send(
        404,
        'application/xml',
        s3Error('NoSuchKey', 'The specified key does not exist.'),
      );
    }
    calls.push(`unhandled ${req.method} ${url.pathname}`);
    send(400, 'text/plain', 'bench stub: unhandled request');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    calls,
    emitted,
    failPuts: (count) => {
      failingPuts = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const s3Error = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

/** One ListObjectsV2 page: keys after the continuation token, at most max-keys (1,000). */
function listPage(
  bucket: string,
  files: Map<string, string> | undefined,
  params: URLSearchParams,
  pageSize: number,
): string {
  const prefix = params.get('prefix') ?? '';
  const max = Math.min(Number(params.get('max-keys') ?? pageSize), pageSize);
  const after = params.get('continuation-token') ?? params.get('start-after') ?? '';
  const keys = [...(files?.keys() ?? [])].filter((k) => k.startsWith(prefix) && k > after).sort();
  const page = keys.slice(0, max);
  const truncated = keys.length > page.length;
  const contents = page
    .map((k) => {
      const text = files!.get(k)!;
      return `<Contents><Key>${xmlEscape(k)}</Key><ETag>${xmlEscape(etagOf(text))}</ETag><Size>${Buffer.byteLength(text)}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    })
    .join('');
  const next = truncated
    ? `<NextContinuationToken>${xmlEscape(page.at(-1)!)}</NextContinuationToken>`
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${xmlEscape(bucket)}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${truncated}</IsTruncated>${contents}${next}</ListBucketResult>`;
}
