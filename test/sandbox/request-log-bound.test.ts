import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../sandbox/request-log';

/** The bound the sandbox documents (sandbox/README.md). */
const MAX_LOG_ENTRIES = 10_000;

const request = { surface: 'management', method: 'GET', path: '/v1/x', status: 200 } as const;

describe('request log bound', () => {
  it('keeps at most the last entries but counts every request, and refuses to hand out a partial log', () => {
    const log = new RequestLog(() => 0);
    for (let i = 0; i < MAX_LOG_ENTRIES; i++) log.add(request);
    expect(log.entries()).toHaveLength(MAX_LOG_ENTRIES);

    log.add(request);
    log.add(request);
    expect(log.count()).toBe(MAX_LOG_ENTRIES + 2);
    expect(log.dropped()).toBe(2);
    expect(() => log.entries()).toThrow(
      `request log truncated: 2 of ${MAX_LOG_ENTRIES + 2} entries dropped`,
    );

    log.clear();
    log.add(request);
    expect(log.count()).toBe(1);
    expect(log.entries().map((e) => e.seq)).toEqual([MAX_LOG_ENTRIES + 3]);
  });
});
