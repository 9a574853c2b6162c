/**
 * The AWS services the sandbox does not serve, as far as the functions use them on a run:
 * S3 (ListObjectsV2, GetObject; path-style, which the SDK uses for an IP endpoint),
 * EventBridge PutEvents and SNS Publish / PublishBatch. One loopback server; every request body is kept, so
 * the leak check can scan what the functions emitted.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AwsStubs {
  url: string;
  /** bucket -> key -> text */
  objects: Map<string, Map<string, string>>;
  /** `S3 ListObjectsV2`, `EventBridge PutEvents`, ... in arrival order. */
  calls: string[];
  /** Raw bodies of PutEvents / Publish (what the functions emitted). */
  emitted: string[];
  close(): Promise<void>;
}

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function startAwsStubs(): Promise<AwsStubs> {
  const objects = new Map<string, Map<string, string>>();
  const calls: string[] = [];
  const emitted: string[] = [];

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
    const files = objects.get(decodeURIComponent(bucket));
    if (req.method === 'GET' && url.searchParams.get('list-type') === '2' && rest.join('') === '') {
      calls.push('S3 ListObjectsV2');
      const prefix = url.searchParams.get('prefix') ?? '';
      const keys = [...(files?.keys() ?? [])].filter((k) => k.startsWith(prefix)).sort();
      const contents = keys
        .map(
          (k) =>
            `<Contents><Key>${xmlEscape(k)}</Key><Size>${Buffer.byteLength(files!.get(k)!)}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
        )
        .join('');
      return send(
        200,
        'application/xml',
        `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${xmlEscape(bucket)}</Name><Prefix>${xmlEscape(prefix)}</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>${contents}</ListBucketResult>`,
      );
    }
    if (req.method === 'GET' && files) {
      calls.push('S3 GetObject');
      const text = files.get(rest.map(decodeURIComponent).join('/'));
      if (text !== undefined) return send(200, 'application/octet-stream', text);
      return send(
        404,
        'application/xml',
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
