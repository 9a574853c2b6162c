/**
 * The HTTP core never follows a redirect: the Basic header would go wherever Location points
 * (another port of the same host is another server), and an answer from another host is not
 * API data. Real servers on loopback: one that redirects, and the target it names.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createManagementClient,
  createObservabilityClient,
  RedirectRefusedError,
} from '../../../lib/api';
import { caught } from '../../support/caught';
import { managementCredentials, observabilityCredentials, SERVICE } from './fixtures';

interface Server {
  url: string;
  host: string;
  /** Authorization headers of the requests it received. */
  seen: (string | undefined)[];
  close(): Promise<void>;
}

const open: Server[] = [];
const clients: { close(): void }[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function serve(address: string, answer: (res: http.ServerResponse) => void): Promise<Server> {
  const seen: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  const s: Server = {
    url: `http://${address}:${port}`,
    host: `${address}:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(s);
  return s;
}

/** Answers like the real API: a valid (empty) pipe list in the management envelope. */
const apiLike = (res: http.ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: 200, requestId: 'r', result: [], data: [] }));
};

const redirectTo =
  (target: () => string, status = 302) =>
  (res: http.ServerResponse) => {
    res.writeHead(status, { location: `${target()}/v1/elsewhere?token=abc` });
    res.end();
  };

function management(baseUrl: string) {
  const client = createManagementClient({
    baseUrl,
    credentials: managementCredentials(),
    rateLimit: false,
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
  });
  clients.push(client);
  return client;
}

describe('redirects are refused, never followed', () => {
  it('a redirect to another port of the same host: typed error naming status and host, the target never reached', async () => {
    const target = await serve('127.0.0.1', apiLike);
    const redirecting = await serve(
      '127.0.0.1',
      redirectTo(() => target.url, 307),
    );
    const error = await caught(management(redirecting.url).listPipes(SERVICE));
    expect(error).toBeInstanceOf(RedirectRefusedError);
    const refused = error as RedirectRefusedError;
    expect(refused.status).toBe(307);
    expect(refused.locationHost).toBe(target.host);
    expect(refused.retryable).toBe(false);
    expect(refused.message).toContain(`answered 307, a redirect to ${target.host}`);
    // Neither the path nor the query of Location is repeated.
    expect(refused.message).not.toContain('token=abc');
    // The key went to the server it was configured for, once, and nowhere else.
    expect(redirecting.seen).toHaveLength(1);
    expect(target.seen).toEqual([]);
  });

  it('a redirect to another host: the answer found there is never taken as API data', async () => {
    // 127.0.0.2 is loopback on Linux, but another host as far as a URL is concerned.
    const target = await serve('127.0.0.2', apiLike);
    const redirecting = await serve(
      '127.0.0.1',
      redirectTo(() => target.url),
    );
    const error = await caught(management(redirecting.url).listPipes(SERVICE));
    expect(error).toBeInstanceOf(RedirectRefusedError);
    expect((error as RedirectRefusedError).locationHost).toBe(target.host);
    expect(target.seen).toEqual([]);
  });

  it('the observability API (bearer token) refuses them too, and a 3xx without Location says so', async () => {
    const redirecting = await serve('127.0.0.1', (res) => {
      res.writeHead(301);
      res.end();
    });
    const client = createObservabilityClient({
      baseUrl: redirecting.url,
      credentials: observabilityCredentials(),
      rateLimit: false,
    });
    clients.push(client);
    const error = await caught(client.listDashboards());
    expect(error).toBeInstanceOf(RedirectRefusedError);
    expect((error as RedirectRefusedError).message).toMatch(
      /answered 301, a redirect without a usable Location/,
    );
    // Not retried: the same request would be redirected again.
    expect(redirecting.seen).toHaveLength(1);
  });
});
