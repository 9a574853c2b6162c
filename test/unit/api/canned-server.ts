/**
 * A tiny real HTTP server on 127.0.0.1:0 that answers from a queue of canned responses and
 * records every request, so tests can assert the exact sequence the client sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';

export interface Canned {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as-is. */
  body?: unknown;
  /** Wait before answering (to trigger client timeouts). */
  delayMs?: number;
  /** Destroy the socket instead of answering (connection reset). */
  reset?: boolean;
}

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface CannedServer {
  url: string;
  requests: Recorded[];
  /** Queue responses; when the queue is empty the server answers 599 (a test bug). */
  enqueue(...responses: Canned[]): void;
  pending(): number;
  close(): Promise<void>;
}

export async function startCannedServer(): Promise<CannedServer> {
  const queue: Canned[] = [];
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      });
      const next = queue.shift() ?? { status: 599, body: 'no canned response left' };
      const answer = () => {
        if (next.reset) {
          req.socket.destroy();
          return;
        }
        const body =
          next.body === undefined
            ? ''
            : typeof next.body === 'string'
              ? next.body
              : JSON.stringify(next.body);
        const headers: Record<string, string> = { ...next.headers };
        if (typeof next.body === 'object' && next.body !== null && !headers['content-type']) {
          headers['content-type'] = 'application/json';
        }
        res.writeHead(next.status ?? 200, headers);
        res.end(body);
      };
      if (next.delayMs) setTimeout(answer, next.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => queue.push(...responses),
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fresh server for every test (handed to `onStart`); clients pushed onto the returned list
 * are closed after the test, before the server.
 */
export function cannedServerPerTest(onStart: (server: CannedServer) => void): { close(): void }[] {
  let server: CannedServer | undefined;
  const clients: { close(): void }[] = [];
  beforeEach(async () => {
    server = await startCannedServer();
    onStart(server);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await server?.close();
  });
  return clients;
}

/** Management success envelope. */
export const ok = (
  result?: unknown,
  requestId = '6f1c1f43-7d2e-4c51-9a49-0d0a8a5f3c11',
): Canned => ({
  status: 200,
  body: result === undefined ? { status: 200, requestId } : { status: 200, requestId, result },
});

/** Management error envelope. */
export const fail = (
  status: number,
  error: string,
  requestId = 'a1b2c3d4-0000-4000-8000-000000000001',
): Canned => ({
  status,
  body: { status, error, requestId },
});
