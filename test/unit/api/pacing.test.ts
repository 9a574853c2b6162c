/**
 * Issue 13: a long wait is never silent. When the client's own rate limiter makes a request
 * wait a second or more, the CLI's terminal logger says so before the wait starts.
 */
import { describe, expect, it } from 'vitest';
import { terminalLogger } from '../../../cli/connect';
import { createManagementClient, RateLimiterRegistry } from '../../../lib/api';
import { createLogger } from '../../../lib/log';
import { cannedServerPerTest, ok, type CannedServer } from './canned-server';
import { fakeClock, managementCredentials, PIPE, pipeRecord, SERVICE } from './fixtures';

let server: CannedServer;
const clients = cannedServerPerTest((s) => (server = s));

describe('rate pacing on a terminal', () => {
  it('a pacing wait of a second or more is announced before it starts; none for the first request', async () => {
    const lines: string[] = [];
    const clock = fakeClock();
    const c = createManagementClient({
      baseUrl: server.url,
      credentials: managementCredentials(),
      // The real management budget: 10 requests per 10 s per key.
      rateLimit: { limit: 10, windowMs: 10_000 },
      limiters: new RateLimiterRegistry(clock),
      clock,
      logger: terminalLogger(createLogger({ level: 'silent' }), (line) => lines.push(line)),
    });
    clients.push(c);
    for (let i = 0; i < 11; i++) server.enqueue(ok(pipeRecord));
    for (let i = 0; i < 10; i++) await c.getPipe(SERVICE, PIPE);
    expect(lines).toEqual([]);
    await c.getPipe(SERVICE, PIPE);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^… keeping to the rate limit: GET \/v1\/organizations\/.+\/pipes\/.+ waits \d+\.\d s$/,
    );
    expect(clock.sleeps.some((ms) => ms >= 1000)).toBe(true);
  });
});
