/**
 * An SQS queue on loopback for the benches: SendMessageBatch / SendMessage over the AWS JSON 1.0
 * protocol the SDK speaks (MD5 of each body answered, as the SDK checks it), limits enforced
 * (10 entries, 256 KiB). The bench plays the Lambda event source: `receive` takes messages as
 * SQS records of the documented shape, `release` makes failed ones visible again.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSRecord } from 'aws-lambda';

export interface SqsStub {
  queueUrl: string;
  endpoint: string;
  /** Messages waiting, oldest first. */
  depth(): number;
  /** Up to `max` messages as Lambda SQS records (they leave the visible queue). */
  receive(max: number): SQSRecord[];
  /** Put records back (a partial batch failure, or an invocation that died). */
  release(records: SQSRecord[]): void;
  sendCalls: number;
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export async function startSqsStub(): Promise<SqsStub> {
  const queue: { id: string; body: string; receives: number }[] = [];
  let sendCalls = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        Entries?: { Id: string; MessageBody: string }[];
        MessageBody?: string;
      };
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, {
          'content-type': 'application/x-amz-json-1.0',
          'x-amzn-requestid': randomUUID(),
        });
        res.end(JSON.stringify(body));
      };
      const error = (type: string, message: string) =>
        answer(400, { __type: `com.amazonaws.sqs#${type}`, message });
      sendCalls += 1;
      if (target === 'AmazonSQS.SendMessageBatch') {
        const entries = input.Entries ?? [];
        if (entries.length === 0) return error('EmptyBatchRequest', 'no entries');
        if (entries.length > 10) return error('TooManyEntriesInBatchRequest', 'at most 10');
        const bytes = entries.reduce((n, e) => n + Buffer.byteLength(e.MessageBody), 0);
        if (bytes > 262_144) return error('BatchRequestTooLong', 'at most 256 KiB');
        const Successful = entries.map((e) => {
          const id = randomUUID();
          queue.push({ id, body: e.MessageBody, receives: 0 });
          return { Id: e.Id, MessageId: id, MD5OfMessageBody: md5(e.MessageBody) };
        });
        return answer(200, { Successful, Failed: [] });
      }
      if (target === 'AmazonSQS.SendMessage') {
        const id = randomUUID();
        queue.push({ id, body: input.MessageBody ?? '', receives: 0 });
        return answer(200, { MessageId: id, MD5OfMessageBody: md5(input.MessageBody ?? '') });
      }
      error('UnsupportedOperation', `stub: ${target}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const arn = 'arn:aws:sqs:us-east-1:000000000000:pipe-watchdog';
  return {
    queueUrl: `${endpoint}/000000000000/pipe-watchdog`,
    endpoint,
    depth: () => queue.length,
    receive(max) {
      return queue.splice(0, max).map((m) => ({
        messageId: m.id,
        receiptHandle: `${m.id}#${++m.receives}`,
        body: m.body,
        attributes: {
          ApproximateReceiveCount: String(m.receives),
          SentTimestamp: String(Date.now()),
          SenderId: 'AIDA000000000',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: md5(m.body),
        eventSource: 'aws:sqs',
        eventSourceARN: arn,
        awsRegion: 'us-east-1',
      }));
    },
    release(records) {
      queue.unshift(
        ...records.map((r) => ({
          id: r.messageId,
          body: r.body,
          receives: Number(r.attributes.ApproximateReceiveCount),
        })),
      );
    },
    get sendCalls() {
      return sendCalls;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
